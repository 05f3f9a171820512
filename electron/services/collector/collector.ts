// Receives the profiler's sample streams. Each connection to the socket is one .NET process
// (a launched program may start child .NET processes, which inherit CLRSCOPE_SOCKET and
// connect too), decoded straight into its own Recording as bytes arrive.
//
// Two kinds of endpoint: a Unix socket in a private directory (the default), or loopback TCP
// for processes that cannot reach it (a Windows program under Wine, a container sharing the
// host's network; the default on Windows, where Node has no Unix sockets in the file system).
// Loopback TCP is open to every user of the machine, so each run draws a 32-byte secret that a
// connection must send first; one that sends anything else, or nothing within a few seconds,
// is closed unheard (structs/wire/PROTOCOL.md, "Connection").

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { WireFormatError } from '../../../structs/wire/wire-format-error.js';
import { Recording } from '../../../structs/profile/recording.js';
import { RecordingError } from '../../../structs/profile/recording-error.js';

/** open: still connected; ended: END received; cut: closed without END; corrupt: closed by us on a bad record. */
export type StreamState = 'open' | 'ended' | 'cut' | 'corrupt';

export interface CollectedStream {
  /** Connection number within this collector, from 1. */
  readonly id: number;
  /** The target's pid from HELLO; undefined until HELLO arrives. */
  readonly pid: number | undefined;
  readonly recording: Recording;
  readonly state: StreamState;
  /** One sentence saying why the stream was rejected (state 'corrupt'). */
  readonly error: string | undefined;
  /** The connection closed part-way through a record (the partial record is dropped). */
  readonly endedMidRecord: boolean;
  /** We hung up (the recording was stopped here), rather than the process or the connection ending it. */
  readonly closedByCollector: boolean;
  readonly bytesReceived: number;
  /** Resolves once the connection has closed and `state` is final. */
  readonly closed: Promise<void>;
  /**
   * Sends bytes to the profiler: control commands (structs/wire/control-commands.ts), only to
   * one that announced CONTROL_READY. False once the connection is closed.
   */
  send(bytes: Uint8Array): boolean;
  /** Shuts our sending side: the profiler then ends its stream cleanly (its last records, END). */
  endSending(): void;
}

export interface CollectorOptions {
  /** Called once per connection, when its HELLO has been decoded (so `pid` is known). */
  onStream?: (stream: CollectedStream) => void;
  /** Called once per connection when it closes, whatever the reason. */
  onStreamClosed?: (stream: CollectedStream) => void;
  /**
   * Called with each chunk of raw bytes a connection delivered, in order, after it was decoded
   * (so `pid` is known from the chunk that completed HELLO on). The chunk holding a corrupt
   * record is still reported, so a second reader of the bytes meets the same error; nothing after it is.
   */
  onChunk?: ChunkListener;
  /** 'unix' (the default, except on Windows) or 'tcp': loopback TCP with a per-run secret. */
  listen?: CollectorListen;
  /** With TCP: how long a connection may take to send the secret (default SECRET_DEADLINE_MS). */
  secretDeadlineMs?: number;
}

export type CollectorListen = 'unix' | 'tcp';

export type ChunkListener = (stream: CollectedStream, chunk: Uint8Array) => void;

export interface Collector {
  /** Pass this to the target as CLRSCOPE_SOCKET: the socket's path, or "tcp:127.0.0.1:PORT". */
  readonly socketPath: string;
  /** With TCP: pass this to the target as CLRSCOPE_SECRET (64 hex digits); undefined for a Unix socket. */
  readonly secret?: string;
  /** The private (0700) directory holding the socket (empty and unused with TCP); removed by close(). */
  readonly directory: string;
  /** Every connection so far, in order of arrival. */
  readonly streams: readonly CollectedStream[];
  /** Stops listening, closes open connections (their streams become 'cut') and removes the directory. */
  close(): Promise<void>;
  /** Adds a chunk listener like the `onChunk` option, for a collector someone else started; returns its removal. */
  onChunk(listener: ChunkListener): () => void;
}

// sun_path holds 108 bytes on Linux including the terminating NUL.
const MAX_SOCKET_PATH_BYTES = 107;
/** Bytes of the secret a TCP connection sends first (core/profiler_config.h kSecretBytes). */
export const SECRET_BYTES = 32;
/** How long a TCP connection may take to send the secret before it is closed. */
export const SECRET_DEADLINE_MS = 5000;

class Stream implements CollectedStream {
  readonly recording = new Recording();
  readonly closed: Promise<void>;
  pid: number | undefined;
  state: StreamState = 'open';
  error: string | undefined;
  endedMidRecord = false;
  closedByCollector = false;
  private readonly decoder = new WireDecoder(this.recording);
  private announced = false;
  private resolveClosed!: () => void;

  constructor(readonly id: number, private readonly socket: Socket, private readonly options: CollectorOptions, private readonly chunkListeners: Set<ChunkListener>) {
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // A reset connection is a cut stream, not a collector failure; 'close' follows.
    socket.on('error', () => undefined);
    socket.on('close', () => this.onClose());
  }

  get bytesReceived(): number {
    return this.decoder.bytesReceived;
  }

  destroy(): void {
    if (this.state === 'open') this.closedByCollector = true;
    this.socket.destroy();
  }

  send(bytes: Uint8Array): boolean {
    if (this.state !== 'open' || this.socket.destroyed || this.socket.writableEnded) return false;
    this.socket.write(bytes);
    return true;
  }

  endSending(): void {
    if (!this.socket.destroyed && !this.socket.writableEnded) this.socket.end();
  }

  /** Decodes a chunk of the connection's bytes (also the ones that arrived with a TCP connection's secret). */
  receive(chunk: Buffer): void {
    if (this.state !== 'open') return;
    try {
      this.decoder.push(chunk);
    } catch (err) {
      this.error = this.describe(err);
      this.state = 'corrupt';
      this.socket.destroy();
    }
    const meta = this.recording.meta;
    if (!this.announced && meta !== undefined) {
      this.announced = true;
      this.pid = meta.pid;
      this.options.onStream?.(this);
    }
    for (const listener of this.chunkListeners) listener(this, chunk);
  }

  private onClose(): void {
    const ending = this.decoder.end();
    if (this.state === 'open') {
      this.endedMidRecord = ending.midRecord;
      this.state = this.recording.end !== undefined && !ending.midRecord ? 'ended' : 'cut';
    }
    if (!this.recording.isFinished) this.recording.finish();
    this.options.onStreamClosed?.(this);
    this.resolveClosed();
  }

  private describe(err: unknown): string {
    if (err instanceof WireFormatError) return err.message;
    if (err instanceof RecordingError) return `Corrupt clrscope stream: the record at byte ${this.decoder.recordOffset} ${err.reason}.`;
    const message = err instanceof Error ? err.message : String(err);
    return `Reading the stream failed at the record at byte ${this.decoder.recordOffset}: ${message}`;
  }
}

/**
 * Holds a TCP connection until it has sent the run's secret: then hands it on with whatever
 * followed the secret in the same reads; on a wrong secret, an early close or the deadline it
 * closes the connection, which never becomes a stream.
 */
function authenticate(socket: Socket, secret: Buffer, deadlineMs: number, accept: (rest: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const timer = setTimeout(() => socket.destroy(), deadlineMs);
  const stop = (): void => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('close', onClose);
  };
  const onClose = (): void => stop();
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    received += chunk.length;
    if (received < SECRET_BYTES) {
      // A short prefix that already differs need not be waited out.
      const head = Buffer.concat(chunks);
      if (!timingSafeEqual(head, secret.subarray(0, head.length))) {
        stop();
        socket.destroy();
      }
      return;
    }
    stop();
    const all = Buffer.concat(chunks);
    if (!timingSafeEqual(all.subarray(0, SECRET_BYTES), secret)) {
      socket.destroy();
      return;
    }
    // The stream's own 'data' listener takes every later read; this one's rest is handed over.
    accept(all.subarray(SECRET_BYTES));
  };
  socket.on('data', onData);
  socket.on('close', onClose);
  socket.on('error', () => undefined);
}

function listenOn(server: Server, where: string | { host: string; port: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (typeof where === 'string') server.listen(where, done);
    else server.listen(where.port, where.host, done);
  });
}

export async function startCollector(options: CollectorOptions = {}): Promise<Collector> {
  const listen = options.listen ?? (process.platform === 'win32' ? 'tcp' : 'unix');
  const directory = await mkdtemp(join(tmpdir(), 'clrscope-'));
  // mkdtemp already uses 0700; say so explicitly since the socket's privacy rests on it.
  await chmod(directory, 0o700);
  let socketPath = join(directory, 'sock');
  if (listen === 'unix' && Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    await rm(directory, { recursive: true, force: true });
    throw new Error(`The collector socket path ${socketPath} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket allows; set TMPDIR to a shorter directory.`);
  }
  const secret = listen === 'tcp' ? randomBytes(SECRET_BYTES) : undefined;
  const streams: Stream[] = [];
  const pending = new Set<Socket>();
  const chunkListeners = new Set<ChunkListener>();
  if (options.onChunk !== undefined) chunkListeners.add(options.onChunk);
  const server: Server = createServer((socket) => {
    if (secret === undefined) {
      streams.push(new Stream(streams.length + 1, socket, options, chunkListeners));
      return;
    }
    pending.add(socket);
    socket.once('close', () => pending.delete(socket));
    authenticate(socket, secret, options.secretDeadlineMs ?? SECRET_DEADLINE_MS, (rest) => {
      pending.delete(socket);
      const stream = new Stream(streams.length + 1, socket, options, chunkListeners);
      streams.push(stream);
      if (rest.length > 0) stream.receive(rest);
    });
  });
  try {
    if (listen === 'tcp') {
      // Loopback only: the stream is not encrypted, and nothing off this machine has a reason to send one.
      await listenOn(server, { host: '127.0.0.1', port: 0 });
      socketPath = `tcp:127.0.0.1:${(server.address() as AddressInfo).port}`;
    } else {
      await listenOn(server, socketPath);
      await chmod(socketPath, 0o600);
    }
  } catch (err) {
    server.close();
    await rm(directory, { recursive: true, force: true });
    throw err;
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of pending) socket.destroy();
      for (const s of streams) s.destroy();
      await Promise.all(streams.map((s) => s.closed));
      await stopped;
      await rm(directory, { recursive: true, force: true });
    })();
    return closing;
  };

  const onChunk = (listener: ChunkListener): (() => void) => {
    // A wrapper, so the same function added twice is removed once per call.
    const entry: ChunkListener = (stream, chunk) => listener(stream, chunk);
    chunkListeners.add(entry);
    return () => { chunkListeners.delete(entry); };
  };

  return { socketPath, secret: secret?.toString('hex'), directory, streams, close, onChunk };
}
