// A diagnostics IPC failure, as one sentence a user can act on. It is a UserError, so the CLI
// prints it without a stack trace; `failure` and `hresult` let callers choose another road
// (e.g. an EventPipe session when another profiler already occupies the process).

import { UserError } from '../errors/user-error.js';

export type DiagnosticsFailure =
  /** No process has this pid. */
  | 'no-process'
  /** The process runs no .NET runtime (no socket, no libcoreclr.so mapped). */
  | 'not-dotnet'
  /** DOTNET_EnableDiagnostics=0 (or _IPC=0) turned the socket off. */
  | 'diagnostics-disabled'
  /** A .NET process without a socket where we looked (other TMPDIR, container, …). */
  | 'no-socket'
  /** The process or its socket belongs to another user. */
  | 'other-user'
  /** The socket is stale or vanished: the process exited. */
  | 'exited'
  /** No reply in time: hung, stopped, or busy with another diagnostics client. */
  | 'timeout'
  /** The runtime closed the connection before a whole reply. */
  | 'closed'
  /** The reply does not follow the protocol. */
  | 'protocol'
  /** The runtime answered with an error HRESULT (see `hresult`). */
  | 'runtime-error'
  | 'aborted';

export class DiagnosticsError extends UserError {
  constructor(message: string, readonly failure: DiagnosticsFailure, readonly pid: number, readonly hresult?: number) {
    super(message, 2);
    this.name = 'DiagnosticsError';
  }
}
