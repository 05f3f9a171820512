// Receives the profiler's sample streams. Each connection to the socket is one .NET process
// (a launched program may start child .NET processes, which inherit CLRSCOPE_SOCKET and
// connect too), decoded straight into its own Recording as bytes arrive.

import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
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
}

export type ChunkListener = (stream: CollectedStream, chunk: Uint8Array) => void;

export interface Collector {
  /** Pass this to the target as CLRSCOPE_SOCKET. */
  readonly socketPath: string;
  /** The private (0700) directory holding the socket; removed by close(). */
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
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
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

  private onData(chunk: Buffer): void {
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
  const chunkListeners = new Set<ChunkListener>();
  if (options.onChunk !== undefined) chunkListeners.add(options.onChunk);
  const server: Server = createServer((socket) => {
    streams.push(new Stream(streams.length + 1, socket, options, chunkListeners));
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

  return { socketPath, directory, streams, close, onChunk };
}
