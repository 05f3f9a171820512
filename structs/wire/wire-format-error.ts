/** A stream that breaks PROTOCOL.md. `offset` is the stream byte offset the message names. */
export class WireFormatError extends Error {
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.name = 'WireFormatError';
    this.offset = offset;
  }
}
