// An EventPipe session over the diagnostics IPC. Unlike every other command, CollectTracing
// keeps its connection: the runtime answers with the session id and then writes the session's
// nettrace stream on the same socket until the session ends (StopTracing from another
// connection, or the process exits), when it writes the rundown, the end tag, and closes.
// Dropping the connection ends the session too: the runtime's streaming thread fails its next
// write and disables the session, and the process carries on.

import { createConnection, type Socket } from 'node:net';
import { decodeHeader, decodeReply } from '../../../structs/diagnostics/codec.js';
import { DiagnosticsProtocolError } from '../../../structs/diagnostics/diagnostics-protocol-error.js';
import { decodeSessionIdPayload, encodeCollectTracing2Request } from '../../../structs/diagnostics/eventpipe-codec.js';
import { describeHresult } from '../../../structs/diagnostics/hresults.js';
import { IPC_HEADER_SIZE, type CollectTracing2Request } from '../../../structs/diagnostics/protocol.js';
import { clause } from '../../../structs/text/clause.js';
import { diagnosticsSocket, stopTracing, transportError } from './client.js';
import { DiagnosticsError } from './diagnostics-error.js';
import { TransportError, type TransportFailure } from './transport.js';

/** How long the runtime may take to answer CollectTracing (it answers once the session is enabled: milliseconds). */
export const DEFAULT_START_TIMEOUT_MS = 10000;

export interface EventPipeStreamOptions {
  /** Each chunk of the session's nettrace stream, in order; called synchronously as bytes arrive. */
  onData: (chunk: Uint8Array) => void;
  /** Deadline for the runtime's reply to CollectTracing2. */
  startTimeoutMs?: number;
  socketPath?: string;
  tempDirs?: readonly string[];
}

/** How the stream ended. */
export interface StreamEnd {
  /** Bytes of nettrace received in all. */
  bytes: number;
  /** 'closed': the runtime closed it (the session ended); 'dropped': clrscope closed it; 'broken': a socket error. */
  how: 'closed' | 'dropped' | 'broken';
  /** For 'broken': what the socket said. */
  error?: string;
}

export interface EventPipeStream {
  readonly pid: number;
  readonly sessionId: bigint;
  /** Resolves once the connection is over, however it ended. */
  readonly ended: Promise<StreamEnd>;
  readonly isEnded: boolean;
  /**
   * StopTracing on a connection of its own. The runtime then writes the rundown and closes this
   * stream; wait for `ended`. A DiagnosticsError when the runtime cannot be asked (it exited).
   */
  stop(): Promise<void>;
  /** Drops the connection without asking: the runtime ends the session on its next write. */
  close(): void;
}

const FAILURE_BY_CODE: Record<string, TransportFailure> = { ENOENT: 'missing', ECONNREFUSED: 'refused', EACCES: 'permission', EPERM: 'permission' };

/**
 * Starts an EventPipe session in `pid` with CollectTracing2. Resolves once the runtime answered
 * with its session id (bytes of the stream that came with the reply are already delivered to
 * onData); a DiagnosticsError (one sentence) when it could not be started.
 */
export async function startEventPipeStream(pid: number, request: CollectTracing2Request, options: EventPipeStreamOptions): Promise<EventPipeStream> {
  let bytes: Uint8Array;
  try {
    bytes = encodeCollectTracing2Request(request);
  } catch (err) {
    if (err instanceof DiagnosticsProtocolError) throw new DiagnosticsError(`Cannot ask process ${pid} for an EventPipe session: ${clause(err.message)}`, 'protocol', pid);
    throw err;
  }
  const socketPath = options.socketPath ?? await diagnosticsSocket(pid, options);
  const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const socket = createConnection({ path: socketPath });
  const started = await new Promise<{ sessionId: bigint; rest: Uint8Array } | TransportError | DiagnosticsError>((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (value: { sessionId: bigint; rest: Uint8Array } | TransportError | DiagnosticsError): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      // Paused until the stream's own listener is on: a flowing socket without one drops data.
      if (!(value instanceof Error)) socket.pause();
      resolve(value);
    };
    const timer = setTimeout(() => finish(new TransportError(`No reply within ${timeoutMs} ms.`, 'timeout', received)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < IPC_HEADER_SIZE) return;
      const all = Buffer.concat(chunks);
      let size: number;
      try {
        size = decodeHeader(all).size;
      } catch (err) {
        finish(new TransportError(err instanceof Error ? err.message : String(err), 'protocol', received));
        return;
      }
      if (received < size) return;
      try {
        const reply = decodeReply(all.subarray(0, size));
        if (reply.kind === 'error') {
          finish(new DiagnosticsError(`Process ${pid} did not start an EventPipe session: ${describeHresult(reply.hresult)}.`, 'runtime-error', pid, reply.hresult));
          return;
        }
        finish({ sessionId: decodeSessionIdPayload(reply.payload), rest: all.subarray(size) });
      } catch (err) {
        if (!(err instanceof DiagnosticsProtocolError)) throw err;
        finish(new DiagnosticsError(`Process ${pid} answered CollectTracing2 with a reply clrscope cannot read: ${clause(err.message)}`, 'protocol', pid));
      }
    };
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', onData);
    const closed = (): void => finish(new TransportError(`The connection closed after ${received} bytes.`, 'closed', received));
    socket.once('end', closed);
    socket.once('close', closed);
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const failure = err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 'closed' : (FAILURE_BY_CODE[err.code ?? ''] ?? 'other');
      finish(new TransportError(err.message, failure, received));
    });
  });
  socket.removeAllListeners('end');
  socket.removeAllListeners('close');
  socket.removeAllListeners('error');
  if (started instanceof Error) {
    socket.destroy();
    if (started instanceof TransportError) throw await transportError(started, pid, socketPath, 'CollectTracing2', timeoutMs);
    throw started;
  }
  return followStream(pid, socket, socketPath, started.sessionId, started.rest, options.onData);
}

function followStream(pid: number, socket: Socket, socketPath: string, sessionId: bigint, first: Uint8Array, onData: (chunk: Uint8Array) => void): EventPipeStream {
  let bytes = 0;
  let ended = false;
  let dropped = false;
  let resolveEnded!: (end: StreamEnd) => void;
  const endedPromise = new Promise<StreamEnd>((resolve) => { resolveEnded = resolve; });
  const end = (how: StreamEnd['how'], error?: string): void => {
    if (ended) return;
    ended = true;
    socket.destroy();
    resolveEnded({ bytes, how: dropped ? 'dropped' : how, error });
  };
  const deliver = (chunk: Uint8Array): void => {
    if (chunk.length === 0 || dropped) return;
    bytes += chunk.length;
    try {
      onData(chunk);
    } catch (err) {
      // The consumer could not take the bytes (a stream it cannot read): stop the session here
      // rather than let the runtime fill a buffer nobody reads.
      end('broken', err instanceof Error ? err.message : String(err));
    }
  };
  deliver(first);
  socket.on('data', (chunk: Buffer) => deliver(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)));
  socket.on('end', () => end('closed'));
  socket.on('close', () => end('closed'));
  socket.on('error', (err: Error) => end('broken', err.message));
  socket.resume();
  return {
    pid,
    sessionId,
    ended: endedPromise,
    get isEnded() { return ended; },
    async stop() {
      if (ended) return;
      await stopTracing(pid, sessionId, { socketPath });
    },
    close() {
      dropped = true;
      end('dropped');
    },
  };
}
