/**
 * What is wrong with bytes that were meant to be a perf-counter IPC block:
 * - `truncated`: fewer bytes than the layout needs;
 * - `wrong-version`: a header whose version this reader does not understand;
 * - `wrong-bitness`: a 32-bit block read with the 64-bit layout, or the reverse;
 * - `unused`: a block no runtime owns (RuntimeId 0), e.g. an empty slot of the table;
 * - `corrupt`: anything else that cannot be a block a runtime wrote (including random bytes);
 * - `missing`: no block could be opened or mapped for the process;
 * - `unsettled`: a writer was inside the block every time it was read.
 */
export type IpcBlockErrorKind = 'truncated' | 'wrong-version' | 'wrong-bitness' | 'unused' | 'corrupt' | 'missing' | 'unsettled';

/** Bytes that are not a usable perf-counter IPC block. The message is one sentence for the user. */
export class IpcBlockError extends Error {
  readonly kind: IpcBlockErrorKind;

  constructor(kind: IpcBlockErrorKind, message: string) {
    super(message);
    this.name = 'IpcBlockError';
    this.kind = kind;
  }
}
