// One diagnostics IPC exchange: connect to the runtime's socket, send one request, read one
// reply, close. Each command takes its own connection (the runtime closes it after answering).
// The runtime serves connections one at a time on a single thread, and a process that is
// stopped or hung still accepts connections (the kernel queues them), so every exchange has a
// deadline covering connect, write and read.

import { createConnection } from 'node:net';
import { decodeHeader } from '../../../structs/diagnostics/codec.js';
import { DiagnosticsProtocolError } from '../../../structs/diagnostics/diagnostics-protocol-error.js';
import { IPC_HEADER_SIZE } from '../../../structs/diagnostics/protocol.js';

export type TransportFailure =
  /** The socket file is gone (ENOENT). */
  | 'missing'
  /** Nobody listens on it (ECONNREFUSED): a stale socket of an exited process. */
  | 'refused'
  /** EACCES/EPERM: another user's socket. */
  | 'permission'
  /** No whole reply before the deadline. */
  | 'timeout'
  /** The runtime closed the connection before a whole reply. */
  | 'closed'
  /** The reply's header is not the protocol's. */
  | 'protocol'
  | 'aborted'
  | 'other';

export class TransportError extends Error {
  constructor(message: string, readonly failure: TransportFailure, readonly received = 0, readonly expected?: number) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface ExchangeOptions {
  /** Deadline for the whole exchange, in milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
}

const FAILURE_BY_CODE: Record<string, TransportFailure> = {
  ENOENT: 'missing',
  ECONNREFUSED: 'refused',
  EACCES: 'permission',
  EPERM: 'permission',
};

/** Sends `request` on a fresh connection to `socketPath` and resolves with the reply's bytes (exactly header.size of them). */
export function exchange(socketPath: string, request: Uint8Array, options: ExchangeOptions): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let expected: number | undefined;
    let settled = false;
    const socket = createConnection({ path: socketPath });

    const finish = (err: TransportError | undefined, reply?: Uint8Array): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err !== undefined) reject(err);
      else resolve(reply ?? new Uint8Array(0));
    };
    const onAbort = (): void => finish(new TransportError('The request was cancelled.', 'aborted', received, expected));
    const timer = setTimeout(() => {
      const what = received === 0 ? 'no reply' : `${received} of ${expected ?? '?'} bytes`;
      finish(new TransportError(`No whole reply within ${options.timeoutMs} ms (${what}).`, 'timeout', received, expected));
    }, options.timeoutMs);
    if (options.signal?.aborted) {
      onAbort();
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });

    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (expected === undefined && received >= IPC_HEADER_SIZE) {
        try {
          expected = decodeHeader(Buffer.concat(chunks)).size;
        } catch (err) {
          const message = err instanceof DiagnosticsProtocolError ? err.message : String(err);
          finish(new TransportError(message, 'protocol', received));
          return;
        }
      }
      if (expected !== undefined && received >= expected) {
        const all = Buffer.concat(chunks);
        finish(undefined, new Uint8Array(all.buffer, all.byteOffset, expected));
      }
    });
    socket.on('end', () => {
      finish(new TransportError(`The connection closed after ${received} of ${expected ?? 'at least 20'} bytes.`, 'closed', received, expected));
    });
    socket.on('close', () => {
      finish(new TransportError(`The connection closed after ${received} of ${expected ?? 'at least 20'} bytes.`, 'closed', received, expected));
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const failure = FAILURE_BY_CODE[err.code ?? ''] ?? 'other';
      // A reset after a whole reply cannot happen (we stop reading at the reply's end); a reset
      // before it is the runtime closing on us.
      finish(new TransportError(err.message, err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 'closed' : failure, received, expected));
    });
  });
}
