/**
 * A stream that decodes but does not make sense as a recording (a sample naming a thread no
 * THREAD record defined, a second HELLO, ...). `reason` completes the phrase "the record ..."
 * so a caller that knows the record's byte offset can name it in one sentence.
 */
export class RecordingError extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(`Corrupt clrscope stream: a record ${reason}.`);
    this.name = 'RecordingError';
    this.reason = reason;
  }
}
