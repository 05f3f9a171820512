/** A .nettrace file clrscope cannot read: the message is one sentence a user can act on. */
export class NettraceFormatError extends Error {
  /** File offset the problem was found at. */
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.name = 'NettraceFormatError';
    this.offset = offset;
  }
}
