// The .NET diagnostics IPC client: ProcessInfo, ProcessInfo2 and AttachProfiler against a
// process by pid. Finds the process's socket, sends one request per connection, and turns
// every failure (no such process, not .NET, diagnostics disabled, another user's, exited, hung,
// an error HRESULT) into a DiagnosticsError: one sentence, and a `failure` kind for callers.

import {
  decodeHresultPayload, decodeProcessInfo, decodeProcessInfo2, decodeReply, encodeAttachProfilerRequest, encodeProcessInfo2Request,
  encodeProcessInfoRequest,
  encodeEnablePerfMapRequest,
  encodeDisablePerfMapRequest,
} from '../../../structs/diagnostics/codec.js';
import { DiagnosticsProtocolError } from '../../../structs/diagnostics/diagnostics-protocol-error.js';
import { decodeSessionIdPayload, encodeStopTracingRequest } from '../../../structs/diagnostics/eventpipe-codec.js';
import { describeHresult, formatHresult } from '../../../structs/diagnostics/hresults.js';
import type { ProcessInfo, ProcessInfo2 } from '../../../structs/diagnostics/protocol.js';
import { DiagnosticsError, type DiagnosticsFailure } from './diagnostics-error.js';
import {
  PROC, diagnosticsSocketDisabledBy, displayName, processExists, readCmdline, readCoreclrPath, readEnviron, readStat, readUid,
} from './proc.js';
import { candidateDirs, locateSocket, windowsPipeName } from './socket-location.js';
import { TransportError, exchange } from './transport.js';
import { currentUid, userName } from './users.js';
import { clause } from '../../../structs/text/clause.js';
import { rootDeniedSentence } from './container-checks.js';
import { namespacesOf } from './namespaces.js';

/** Deadline for ProcessInfo/ProcessInfo2: a healthy runtime answers in about a millisecond. */
export const DEFAULT_QUERY_TIMEOUT_MS = 3000;
/** The runtime's attach timeout (waiting for a background GC to finish) unless told otherwise. */
export const DEFAULT_ATTACH_TIMEOUT_MS = 10000;
/** How much longer than its attach timeout we wait for the reply: loading the library and InitializeForAttach take time too. */
export const ATTACH_REPLY_MARGIN_MS = 20000;

export interface DiagnosticsRequestOptions {
  /** Deadline for the whole exchange (default DEFAULT_QUERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Use this socket instead of looking for the process's own. */
  socketPath?: string;
  /** Directories to look in besides the target's TMPDIR (default: ours and /tmp). */
  tempDirs?: readonly string[];
  signal?: AbortSignal;
}

export interface AttachProfilerOptions {
  /** The profiler's CLSID, "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}". */
  clsid: string;
  /** The profiler library's path, as the target process sees it. */
  path: string;
  /** Handed to the profiler's InitializeForAttach; a string goes as UTF-8 without a NUL. */
  clientData?: Uint8Array | string;
  /** The runtime's attach timeout in ms (default DEFAULT_ATTACH_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Our deadline for the reply (default timeoutMs + ATTACH_REPLY_MARGIN_MS). */
  replyTimeoutMs?: number;
  socketPath?: string;
  tempDirs?: readonly string[];
  signal?: AbortSignal;
}

/** Why a process has no diagnostics socket where we looked, in facts. */
export interface MissingSocket {
  failure: Extract<DiagnosticsFailure, 'no-process' | 'not-dotnet' | 'diagnostics-disabled' | 'no-socket' | 'other-user'>;
  /** A short name: the kernel's process name. */
  name: string;
  /** For diagnostics-disabled: the setting, e.g. "DOTNET_EnableDiagnostics=0". */
  setting?: string;
  /** For other-user: the owner's name. */
  owner?: string;
  /** The libcoreclr.so path when the process runs .NET and we could see its maps. */
  coreclrPath?: string;
}


function checkPid(pid: number): void {
  if (!Number.isInteger(pid) || pid < 1 || pid > 0x7fffffff) throw new DiagnosticsError(`${pid} is not a process id.`, 'no-process', pid);
}

/** Looks at /proc to say why `pid` has no socket. */
export async function explainMissingSocket(pid: number, proc = PROC): Promise<MissingSocket> {
  if (!(await processExists(pid, proc))) return { failure: 'no-process', name: `pid ${pid}` };
  const [stat, argv, env, uid, coreclr] = await Promise.all([readStat(pid, proc), readCmdline(pid, proc), readEnviron(pid, proc), readUid(pid, proc), readCoreclrPath(pid, proc)]);
  const name = displayName(stat, argv, pid);
  const me = currentUid();
  if (uid !== undefined && uid !== me && me !== 0) return { failure: 'other-user', name, owner: await userName(uid) };
  const setting = env === undefined ? undefined : diagnosticsSocketDisabledBy(env);
  if (setting !== undefined) return { failure: 'diagnostics-disabled', name, setting, coreclrPath: coreclr || undefined };
  if (coreclr !== undefined && coreclr !== '') return { failure: 'no-socket', name, coreclrPath: coreclr };
  return { failure: 'not-dotnet', name };
}

/** Who may attach to a process of `owner` (a name, or undefined when unknown). */
function runAs(owner: string | undefined): string {
  return owner === undefined || owner === 'root' ? 'run it as root' : `run it as ${owner} or as root`;
}

async function missingSocketError(pid: number, dirs: readonly string[]): Promise<DiagnosticsError> {
  const why = await explainMissingSocket(pid);
  const who = `Process ${pid} (${why.name})`;
  // Ours, but closed to us: its namespaces (a container's /tmp) and maps cannot be looked into.
  if (why.failure !== 'no-process' && why.failure !== 'other-user' && !namespacesOf(pid).readable) {
    return new DiagnosticsError(rootDeniedSentence(pid), 'other-user', pid);
  }
  switch (why.failure) {
    case 'no-process':
      return new DiagnosticsError(`There is no process with pid ${pid}.`, why.failure, pid);
    case 'other-user':
      return new DiagnosticsError(`${who} belongs to ${why.owner}, and only root may attach clrscope to another user's process: ${runAs(why.owner)}.`, why.failure, pid);
    case 'diagnostics-disabled':
      return new DiagnosticsError(`${who} was started with ${why.setting}, which turns off the runtime's diagnostics socket and profilers alike, so clrscope cannot attach to it: restart it without that setting.`, why.failure, pid);
    case 'no-socket':
      return new DiagnosticsError(`${who} runs .NET but has no diagnostics socket in ${dirs.join(' or ')}: it may run with another TMPDIR, or have its diagnostics turned off.`, why.failure, pid);
    default:
      return new DiagnosticsError(`${who} is not a .NET process: it has no .NET runtime diagnostics socket.`, why.failure, pid);
  }
}

/** The path of the process's diagnostics socket; a DiagnosticsError saying why when there is none. */
export async function diagnosticsSocket(pid: number, options: { tempDirs?: readonly string[] } = {}): Promise<string> {
  checkPid(pid);
  // Windows has no /proc to look in; a process without the pipe fails the connect (ENOENT).
  if (process.platform === 'win32') return windowsPipeName(pid);
  const found = await locateSocket(pid, options);
  if (found !== undefined) return found.path;
  throw await missingSocketError(pid, await candidateDirs(pid, options));
}

/** A failed exchange with `pid`'s socket as one sentence for the user. */
export async function transportError(err: TransportError, pid: number, socketPath: string, command: string, timeoutMs: number): Promise<DiagnosticsError> {
  switch (err.failure) {
    case 'missing':
      return new DiagnosticsError(`Process ${pid}'s diagnostics socket ${socketPath} disappeared: the process has exited.`, 'exited', pid);
    case 'refused':
      return new DiagnosticsError(`Process ${pid} does not accept diagnostics connections at ${socketPath}: the socket is left over from an exited process, or its runtime is shutting down.`, 'exited', pid);
    case 'permission': {
      const uid = await readUid(pid);
      const owner = uid === undefined ? 'another user' : await userName(uid);
      return new DiagnosticsError(`Process ${pid}'s diagnostics socket ${socketPath} belongs to ${owner}, and only root may attach clrscope to another user's process: ${runAs(owner)}.`, 'other-user', pid);
    }
    case 'timeout':
      return new DiagnosticsError(`Process ${pid} did not answer ${command} within ${timeoutMs} ms: its runtime may be hung, stopped (SIGSTOP or a debugger), or busy with another diagnostics client.`, 'timeout', pid);
    case 'closed':
      return new DiagnosticsError(`Process ${pid} closed the diagnostics connection before answering ${command} (${err.received} bytes arrived): it may be exiting.`, 'closed', pid);
    case 'protocol':
      return new DiagnosticsError(`Process ${pid} answered ${command} with bytes that are not a diagnostics IPC reply: ${clause(err.message)}`, 'protocol', pid);
    case 'aborted':
      return new DiagnosticsError(`The ${command} request to process ${pid} was cancelled.`, 'aborted', pid);
    default:
      return new DiagnosticsError(`Cannot talk to process ${pid} through ${socketPath}: ${err.message}.`, 'exited', pid);
  }
}

/** Sends one request and returns the OK payload; every failure becomes a DiagnosticsError. */
async function request(pid: number, command: string, bytes: Uint8Array, options: DiagnosticsRequestOptions, refusal: string): Promise<Uint8Array> {
  checkPid(pid);
  const socketPath = options.socketPath ?? await diagnosticsSocket(pid, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  let replyBytes: Uint8Array;
  try {
    replyBytes = await exchange(socketPath, bytes, { timeoutMs, signal: options.signal });
  } catch (err) {
    if (err instanceof TransportError) throw await transportError(err, pid, socketPath, command, timeoutMs);
    throw err;
  }
  try {
    const reply = decodeReply(replyBytes);
    if (reply.kind === 'error') {
      throw new DiagnosticsError(`${refusal}: ${describeHresult(reply.hresult)}.`, 'runtime-error', pid, reply.hresult);
    }
    return reply.payload;
  } catch (err) {
    if (err instanceof DiagnosticsProtocolError) throw new DiagnosticsError(`Process ${pid} answered ${command} with a reply clrscope cannot read: ${clause(err.message)}`, 'protocol', pid);
    throw err;
  }
}

function decoded<T>(pid: number, command: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof DiagnosticsProtocolError) throw new DiagnosticsError(`Process ${pid} answered ${command} with a reply clrscope cannot read: ${clause(err.message)}`, 'protocol', pid);
    throw err;
  }
}

/** ProcessInfo (0x04/0x00): pid, runtime cookie, command line, OS, architecture. */
export async function processInfo(pid: number, options: DiagnosticsRequestOptions = {}): Promise<ProcessInfo> {
  const payload = await request(pid, 'ProcessInfo', encodeProcessInfoRequest(), options, `Process ${pid} could not answer ProcessInfo`);
  return decoded(pid, 'ProcessInfo', () => decodeProcessInfo(payload));
}

/** ProcessInfo2 (0x04/0x04, .NET 6+): ProcessInfo plus the entrypoint assembly name and the CLR product version. */
export async function processInfo2(pid: number, options: DiagnosticsRequestOptions = {}): Promise<ProcessInfo2> {
  const payload = await request(pid, 'ProcessInfo2', encodeProcessInfo2Request(), options, `Process ${pid} could not answer ProcessInfo2`);
  return decoded(pid, 'ProcessInfo2', () => decodeProcessInfo2(payload));
}

/**
 * AttachProfiler (0x03/0x01): asks the runtime to load the profiler library and call its
 * InitializeForAttach(clientData). Resolves once the runtime reports S_OK; a refusal (another
 * profiler loaded, library not loadable, InitializeForAttach failed, …) is a DiagnosticsError
 * with failure 'runtime-error' and the HRESULT.
 */
export async function attachProfiler(pid: number, options: AttachProfilerOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTACH_TIMEOUT_MS;
  let bytes: Uint8Array;
  try {
    bytes = encodeAttachProfilerRequest({ clsid: options.clsid, path: options.path, clientData: options.clientData, timeoutMs });
  } catch (err) {
    if (err instanceof DiagnosticsProtocolError) throw new DiagnosticsError(`Cannot ask process ${pid} to load the profiler: ${clause(err.message)}`, 'protocol', pid);
    throw err;
  }
  const payload = await request(pid, 'AttachProfiler', bytes, {
    timeoutMs: options.replyTimeoutMs ?? timeoutMs + ATTACH_REPLY_MARGIN_MS,
    socketPath: options.socketPath,
    tempDirs: options.tempDirs,
    signal: options.signal,
  }, `Process ${pid} did not load the profiler`);
  const hresult = decoded(pid, 'AttachProfiler', () => decodeHresultPayload(payload));
  if (hresult !== 0) {
    throw new DiagnosticsError(`Process ${pid} answered AttachProfiler with OK but status ${formatHresult(hresult)}: ${describeHresult(hresult)}.`, 'runtime-error', pid, hresult);
  }
}

/**
 * StopTracing (0x02/0x01): ends EventPipe session `sessionId` (started by CollectTracing*, see
 * eventpipe-stream.ts). The runtime answers once the session is disabled; its own stream then
 * carries the rundown, if one was requested, and closes.
 */
export async function stopTracing(pid: number, sessionId: bigint, options: DiagnosticsRequestOptions = {}): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = encodeStopTracingRequest(sessionId);
  } catch (err) {
    if (err instanceof DiagnosticsProtocolError) throw new DiagnosticsError(`Cannot ask process ${pid} to stop its EventPipe session: ${clause(err.message)}`, 'protocol', pid);
    throw err;
  }
  const payload = await request(pid, 'StopTracing', bytes, options, `Process ${pid} did not stop its EventPipe session`);
  decoded(pid, 'StopTracing', () => decodeSessionIdPayload(payload));
}

/**
 * EnablePerfMap (0x04/0x05, .NET 8+): the runtime writes its perf map from now on (`type` 3:
 * the map alone), replaying the methods JIT-compiled so far but not the stubs made so far
 * (GC-AND-STUBS-STUDY.md section (c)). A DiagnosticsError when the runtime refuses.
 */
export async function enablePerfMap(pid: number, type: number, options: DiagnosticsRequestOptions = {}): Promise<void> {
  const payload = await request(pid, 'EnablePerfMap', encodeEnablePerfMapRequest(type), options, `Process ${pid} could not turn its perf map on`);
  const hresult = decoded(pid, 'EnablePerfMap', () => decodeHresultPayload(payload));
  if (hresult !== 0) throw new DiagnosticsError(`Process ${pid} answered EnablePerfMap with status ${formatHresult(hresult)}: ${describeHresult(hresult)}.`, 'runtime-error', pid, hresult);
}

/** DisablePerfMap (0x04/0x06, .NET 8+): the runtime stops writing its perf map. */
export async function disablePerfMap(pid: number, options: DiagnosticsRequestOptions = {}): Promise<void> {
  const payload = await request(pid, 'DisablePerfMap', encodeDisablePerfMapRequest(), options, `Process ${pid} could not turn its perf map off`);
  decoded(pid, 'DisablePerfMap', () => decodeHresultPayload(payload));
}
