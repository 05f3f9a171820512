/** Bytes that break the diagnostics IPC protocol (README.md here), or a request it cannot carry. */
export class DiagnosticsProtocolError extends Error {
  /** Byte offset in the message where the problem is; -1 when it concerns no particular byte. */
  readonly offset: number;

  constructor(message: string, offset = -1) {
    super(message);
    this.name = 'DiagnosticsProtocolError';
    this.offset = offset;
  }
}
