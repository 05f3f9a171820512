// Receives the profiler's sample streams. Each connection to the socket is one .NET process
// (a launched program may start child .NET processes, which inherit CLRSCOPE_SOCKET and
// connect too), decoded straight into its own Recording as bytes arrive.
//
// Memory is bounded per collector, not per connection: a connection must say HELLO within
// PRE_HELLO_BYTES and PRE_HELLO_MS, at most MAX_PENDING connections may be waiting to, and
// the `accept` policy decides at HELLO whether a stream is recorded at all (a session wants
// one process; the others are hung up on, so their profilers go quiet).

import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { WireFormatError } from '../../../structs/wire/wire-format-error.js';
import { Recording } from '../../../structs/profile/recording.js';
import { RecordingError } from '../../../structs/profile/recording-error.js';
import { latestMono } from '../../../structs/profile/latest-mono.js';
import { EndReason } from '../../../structs/wire/records.js';

/**
 * open: still connected; ended: END received, or we ended the recording (close(), a stop)
 * and said so with an END of reason Stopped; cut: closed by the other side without END;
 * corrupt: closed by us on a bad record.
 */
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
}

export interface CollectorOptions {
  /** Called once per connection, when its HELLO has been decoded (so `pid` is known). */
  onStream?: (stream: CollectedStream) => void;
  /** Called once per recorded connection when it closes, whatever the reason (refused ones: onRefused). */
  onStreamClosed?: (stream: CollectedStream) => void;
  /**
   * Called with each chunk of raw bytes a recorded connection delivered, in order, after it was
   * decoded; chunks that came before HELLO are handed over when it arrives, so `pid` is always
   * known. The chunk holding a corrupt record is still reported, so a second reader of the
   * bytes meets the same error; nothing after it is.
   */
  onChunk?: ChunkListener;
  /**
   * Decides, once a connection's HELLO has arrived, whether its stream is recorded; a refused
   * one is hung up on at once and never appears in `streams`. `accepted` are the streams
   * accepted so far. Default: up to MAX_STREAMS streams.
   */
  accept?: (pid: number, accepted: readonly CollectedStream[]) => boolean;
  /** Called for each connection hung up on before it was recorded, with its pid when it said HELLO. */
  onRefused?: (pid: number | undefined, why: string) => void;
}

export type ChunkListener = (stream: CollectedStream, chunk: Uint8Array) => void;

export interface Collector {
  /** Pass this to the target as CLRSCOPE_SOCKET. */
  readonly socketPath: string;
  /** The private (0700) directory holding the socket; removed by close(). */
  readonly directory: string;
  /** Every recorded connection so far and those still waiting to say HELLO, in order of arrival (refused ones leave). */
  readonly streams: readonly CollectedStream[];
  /** Stops listening, closes open connections (their streams become 'cut') and removes the directory. */
  close(): Promise<void>;
  /** Adds a chunk listener like the `onChunk` option, for a collector someone else started; returns its removal. */
  onChunk(listener: ChunkListener): () => void;
}

// sun_path holds 108 bytes on Linux including the terminating NUL.
const MAX_SOCKET_PATH_BYTES = 107;
/** Streams recorded at once by default (a launched program and the .NET programs it starts). */
export const MAX_STREAMS = 16;
/** Connections that have not said HELLO yet, at once; more are hung up on. */
export const MAX_PENDING = 8;
/** A profiler sends its preamble and HELLO first, in well under this many bytes and this much time. */
export const PRE_HELLO_BYTES = 64 * 1024;
export const PRE_HELLO_MS = 10_000;

interface Admission {
  admit(stream: Stream): boolean;
  refuse(stream: Stream, why: string): void;
}

class Stream implements CollectedStream {
  readonly recording = new Recording();
  readonly closed: Promise<void>;
  pid: number | undefined;
  state: StreamState = 'open';
  error: string | undefined;
  endedMidRecord = false;
  closedByCollector = false;
  private readonly decoder = new WireDecoder(this.recording);
  announced = false;
  refused = false;
  private early: Buffer[] = [];
  private resolveClosed!: () => void;
  private readonly helloTimer: NodeJS.Timeout;

  constructor(readonly id: number, private readonly socket: Socket, private readonly options: CollectorOptions, private readonly chunkListeners: Set<ChunkListener>, private readonly admission: Admission) {
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // A reset connection is a cut stream, not a collector failure; 'close' follows.
    socket.on('error', () => undefined);
    socket.on('close', () => this.onClose());
    this.helloTimer = setTimeout(() => this.refuse(`it sent no HELLO within ${PRE_HELLO_MS / 1000} s`), PRE_HELLO_MS);
    this.helloTimer.unref();
  }

  /** Hangs up on a connection that is not (or not yet) recorded. */
  refuse(why: string): void {
    if (this.announced || this.refused) return;
    this.refused = true;
    this.early = [];
    this.socket.destroy();
    this.admission.refuse(this, why);
  }

  get bytesReceived(): number {
    return this.decoder.bytesReceived;
  }

  destroy(): void {
    if (this.state === 'open') this.closedByCollector = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.state !== 'open' || this.refused) return;
    try {
      this.decoder.push(chunk);
    } catch (err) {
      this.error = this.describe(err);
      this.state = 'corrupt';
      this.socket.destroy();
    }
    if (this.announced) {
      for (const listener of this.chunkListeners) listener(this, chunk);
      return;
    }
    // Before HELLO nobody hears of the connection: its bytes wait here (bounded), and are
    // handed over in order once it is admitted.
    this.early.push(chunk);
    const meta = this.recording.meta;
    if (meta === undefined) {
      if (this.decoder.bytesReceived > PRE_HELLO_BYTES) this.refuse(`it sent ${this.decoder.bytesReceived} bytes without a HELLO`);
      else if (this.state !== 'open') this.refuse(this.error ?? 'its stream was corrupt');
      return;
    }
    clearTimeout(this.helloTimer);
    this.pid = meta.pid;
    if (!this.admission.admit(this)) {
      this.refuse(`the session records one process and pid ${meta.pid} is not it`);
      return;
    }
    this.announced = true;
    this.options.onStream?.(this);
    const early = this.early;
    this.early = [];
    for (const piece of early) for (const listener of this.chunkListeners) listener(this, piece);
  }

  private onClose(): void {
    clearTimeout(this.helloTimer);
    const ending = this.decoder.end();
    if (this.state === 'open') {
      this.endedMidRecord = ending.midRecord;
      if (this.closedByCollector && this.recording.meta !== undefined && this.recording.end === undefined) {
        // We hung up (a stop, a duration, a detach): the recording ends here, cleanly, and says
        // so in an END of its own; a half-received last record is dropped, as it would be at any end.
        this.recording.onEnd({ mono: latestMono(this.recording), reason: EndReason.Stopped });
      }
      this.state = this.recording.end !== undefined && (!ending.midRecord || this.closedByCollector) ? 'ended' : 'cut';
    }
    if (!this.recording.isFinished) this.recording.finish();
    if (!this.refused) this.options.onStreamClosed?.(this);
    this.resolveClosed();
  }

  private describe(err: unknown): string {
    if (err instanceof WireFormatError) return err.message;
    if (err instanceof RecordingError) return `Corrupt clrscope stream: the record at byte ${this.decoder.recordOffset} ${err.reason}.`;
    const message = err instanceof Error ? err.message : String(err);
    return `Reading the stream failed at the record at byte ${this.decoder.recordOffset}: ${message}`;
  }
}

export async function startCollector(options: CollectorOptions = {}): Promise<Collector> {
  const directory = await mkdtemp(join(tmpdir(), 'clrscope-'));
  // mkdtemp already uses 0700; say so explicitly since the socket's privacy rests on it.
  await chmod(directory, 0o700);
  const socketPath = join(directory, 'sock');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    await rm(directory, { recursive: true, force: true });
    throw new Error(`The collector socket path ${socketPath} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket allows; set TMPDIR to a shorter directory.`);
  }
  const streams: Stream[] = [];
  // Every connection until it closes, refused or not, so close() can wait for all of them.
  const live = new Set<Stream>();
  let connections = 0;
  const chunkListeners = new Set<ChunkListener>();
  if (options.onChunk !== undefined) chunkListeners.add(options.onChunk);
  const accept = options.accept ?? ((_pid: number, accepted: readonly CollectedStream[]) => accepted.length < MAX_STREAMS);
  const admission: Admission = {
    admit: (stream) => accept(stream.pid ?? 0, streams.filter((s) => s.announced)),
    refuse: (stream, why) => {
      const at = streams.indexOf(stream);
      if (at >= 0) streams.splice(at, 1);
      options.onRefused?.(stream.pid, why);
    },
  };
  const server: Server = createServer((socket) => {
    const stream = new Stream(++connections, socket, options, chunkListeners, admission);
    live.add(stream);
    void stream.closed.then(() => live.delete(stream));
    const pending = streams.filter((s) => !s.announced && s.state === 'open').length;
    streams.push(stream);
    if (pending >= MAX_PENDING) stream.refuse(`${MAX_PENDING} other connections were already waiting to say HELLO`);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
  } catch (err) {
    server.close();
    await rm(directory, { recursive: true, force: true });
    throw err;
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      const all = [...live];
      for (const s of all) s.destroy();
      await Promise.all(all.map((s) => s.closed));
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

  return { socketPath, directory, streams, close, onChunk };
}
