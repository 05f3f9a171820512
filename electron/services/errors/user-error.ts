/** A failure the user can fix (bad input, missing file): the CLI prints its message as one sentence and exits non-zero, without a stack trace. */
export class UserError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
    this.name = 'UserError';
  }
}
