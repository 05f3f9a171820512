/** A speedscope file clrscope cannot read; the message is one sentence for the user. */
export class SpeedscopeFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpeedscopeFormatError';
  }
}
