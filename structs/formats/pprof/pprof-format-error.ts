/** A pprof profile clrscope cannot read; the message is one sentence for the user. */
export class PprofFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PprofFormatError';
  }
}
