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
//
// Memory is bounded per collector, not per connection: a connection must say HELLO within
// PRE_HELLO_BYTES and PRE_HELLO_MS, at most MAX_PENDING connections may be waiting to, and
// the `accept` policy decides at HELLO whether a stream is recorded at all (a session wants
// one process; the others are hung up on, so their profilers go quiet).
//
// A program may close the descriptor of its profiler's connection (daemons and supervisors close
// every descriptor they did not open). The stream then ends without END, and the profiler, once
// it notices, says why on a second connection whose HELLO is marked AfterLoss: its STATS and END
// (reason ConnectionLost, with the descriptor) are added to that process's stream as if they had
// arrived on it. A stream that ends without END therefore waits up to LAST_WORD_MS for them
// while its process is still alive, before it counts as cut.

import { randomBytes } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { grantFolder, type FileOwner } from './grant-folder.js';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { WireFormatError } from '../../../structs/wire/wire-format-error.js';
import { Recording } from '../../../structs/profile/recording.js';
import { RecordingError } from '../../../structs/profile/recording-error.js';
import { latestMono } from '../../../structs/profile/latest-mono.js';
import { EndReason, HelloFlags, type EndRecord, type StatsRecord } from '../../../structs/wire/records.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { readFileSync } from 'node:fs';
import { ownedTempDir } from '../files/owned-temp-dir.js';
import { authenticate, listenOn } from './secret-handshake.js';

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
  /** 'unix' (the default, except on Windows) or 'tcp': loopback TCP with a per-run secret. */
  listen?: CollectorListen;
  /** With TCP: how long a connection may take to send the secret (default SECRET_DEADLINE_MS). */
  secretDeadlineMs?: number;
  /** How long close() waits for a profiler to end its stream itself (default FINISH_MS). */
  finishMs?: number;
  /** Called once at the end of close(), after every stream ended (an attach's clean-up in the target). */
  onClosed?: () => Promise<void>;
  /**
   * False: each stream's Recording counts its samples but keeps none (RecordingOptions): for a
   * caller whose samples go to a spool file and are read back from it when all are needed (the
   * workstation). Default true (the CLI, whose recording is bounded by its run).
   */
  keepSamples?: boolean;
  /**
   * Where the socket's folder is made (default the temp folder): a container's temp folder seen
   * through /proc/PID/root, so the profiler inside reaches the socket by its path there.
   */
  directoryIn?: string;
  /**
   * The pid a HELLO's pid is for clrscope: a profiler in a container says the pid it has there
   * (default: the same).
   */
  pidOf?: (helloPid: number) => number;
  /**
   * The user the profiler runs as, when it is not ours (root attaching to another user's process):
   * the socket becomes that user's, owner-only, and the folder searchable by its group only, so the
   * profiler can connect while the folder's entries stay root's to change.
   */
  grantTo?: FileOwner;
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
  /** Every recorded connection so far and those still waiting to say HELLO, in order of arrival (refused ones leave). */
  readonly streams: readonly CollectedStream[];
  /**
   * Stops listening and ends every recording: each profiler is asked to finish its stream (the
   * connection's sending side is shut) and has FINISH_MS to send what it holds and END; one that
   * does not is hung up on, and its recording ends with an END of reason Stopped all the same.
   * Then removes the directory.
   */
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
/** Bytes of the secret a TCP connection sends first (core/profiler_config.h kSecretBytes). */
export const SECRET_BYTES = 32;
/** How long a TCP connection may take to send the secret before it is closed. */
export const SECRET_DEADLINE_MS = 5000;
/** How long a profiler asked to finish gets to send its END: it answers within a sampling tick. */
export const FINISH_MS = 2000;
/**
 * How long a stream that ended without END, its process still alive, waits for the profiler's
 * word on why (an AfterLoss connection): the profiler notices a taken descriptor at its next
 * sampling tick, a few milliseconds later on a machine that is not overloaded.
 */
export const LAST_WORD_MS = 1500;

/** Whether process `pid` has ended (gone, or a zombie nobody reaped yet): no word can come from it. */
function processEnded(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (process.platform !== 'linux') return false;
  try {
    // The state follows the parenthesized command name, which may itself hold parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

interface Admission {
  admit(stream: Stream): boolean;
  refuse(stream: Stream, why: string): void;
  /** An AfterLoss connection said its last word: the stream of its process it belongs to, if any waits for it. */
  lastWord(stream: Stream): Stream | undefined;
}

class Stream implements CollectedStream {
  readonly recording: Recording;
  readonly closed: Promise<void>;
  pid: number | undefined;
  state: StreamState = 'open';
  error: string | undefined;
  endedMidRecord = false;
  closedByCollector = false;
  private readonly decoder: WireDecoder;
  announced = false;
  refused = false;
  private early: Buffer[] = [];
  private resolveClosed!: () => void;
  private readonly helloTimer: NodeJS.Timeout;
  /** An AfterLoss connection: it only carries the last word of an earlier stream of its process. */
  private afterLoss = false;
  /** Closed without END, waiting up to LAST_WORD_MS for the profiler's last word. */
  private lastWordTimer: NodeJS.Timeout | undefined;
  private connectionClosed = false;
  private settled = false;

  constructor(readonly id: number, private readonly socket: Socket, private readonly options: CollectorOptions, private readonly chunkListeners: Set<ChunkListener>, private readonly admission: Admission) {
    this.recording = new Recording({ keepSamples: options.keepSamples ?? true });
    this.decoder = new WireDecoder(this.recording.sink);
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
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

  /**
   * Asks the profiler to end the stream: our sending side is shut, which it sees as an end of
   * input, and it answers with its last samples and END, then closes. One that does not within
   * `ms` is hung up on.
   */
  async finish(ms: number): Promise<void> {
    if (this.state !== 'open') return this.closed;
    if (this.connectionClosed) {
      // Already closed by the other side, waiting for a last word: none is coming in time.
      this.settle();
      return this.closed;
    }
    this.closedByCollector = true;
    if (!this.announced) {
      this.socket.destroy();
      return this.closed;
    }
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), ms);
    await this.closed;
    clearTimeout(timer);
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
    if (this.afterLoss) {
      if (this.decoder.bytesReceived > PRE_HELLO_BYTES) this.refuse(`its last word took ${this.decoder.bytesReceived} bytes`);
      else this.deliverLastWord();
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
    this.pid = this.options.pidOf?.(meta.pid) ?? meta.pid;
    if ((meta.flags & HelloFlags.AfterLoss) !== 0) {
      this.afterLoss = true;
      this.deliverLastWord();
      return;
    }
    if (!this.admission.admit(this)) {
      this.refuse(`the session records one process and pid ${this.pid} is not it`);
      return;
    }
    this.announced = true;
    this.options.onStream?.(this);
    const early = this.early;
    this.early = [];
    for (const piece of early) for (const listener of this.chunkListeners) listener(this, piece);
  }

  /** The AfterLoss connection's STATS and END, once both arrived, go to the stream they belong to. */
  private deliverLastWord(): void {
    const end = this.recording.end;
    if (end === undefined || this.refused) return;
    this.refused = true;
    this.early = [];
    this.socket.destroy();
    this.admission.lastWord(this)?.takeLastWord(this.recording.stats, end);
  }

  /**
   * The profiler's last word on a stream the program took from it, encoded again as records of
   * this stream: decoded here and handed to the chunk listeners, as if they had arrived on it. A
   * stream that stopped inside a record cannot take whole records after it; it stays cut.
   */
  takeLastWord(stats: StatsRecord | undefined, end: EndRecord): void {
    if (this.state !== 'open' || this.recording.end !== undefined || this.decoder.end().midRecord) return;
    const enc = new WireEncoder(256);
    if (stats !== undefined) enc.stats(stats);
    enc.end(end);
    const bytes = enc.bytes().slice();
    this.receive(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (this.connectionClosed) this.settle();
  }

  private onClose(): void {
    clearTimeout(this.helloTimer);
    this.connectionClosed = true;
    const pid = this.pid;
    if (this.state === 'open' && this.announced && !this.closedByCollector && this.recording.end === undefined && pid !== undefined && !processEnded(pid)) {
      this.lastWordTimer = setTimeout(() => this.settle(), LAST_WORD_MS);
      return;
    }
    this.settle();
  }

  /** The stream's state is final: how it ended is decided and every listener told. */
  private settle(): void {
    if (this.lastWordTimer !== undefined) clearTimeout(this.lastWordTimer);
    this.lastWordTimer = undefined;
    if (this.settled) return;
    this.settled = true;
    const ending = this.decoder.end();
    if (this.state === 'open') {
      this.endedMidRecord = ending.midRecord;
      if (this.closedByCollector && this.recording.meta !== undefined && this.recording.end === undefined) {
        // We hung up (a stop, a duration, a detach): the recording ends here, cleanly, and says
        // so in an END of its own; a half-received last record is dropped, as it would be at any end.
        this.recording.sink.onEnd({ mono: latestMono(this.recording), reason: EndReason.Stopped });
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
  const listen = options.listen ?? (process.platform === 'win32' ? 'tcp' : 'unix');
  // 0700, and named for this process so that a later clrscope removes it should this one be killed.
  // In a container, named so that only folders placed there from outside are swept (owned-temp-dir.ts).
  const directory = options.directoryIn === undefined ? await ownedTempDir() : await ownedTempDir('fromhost', options.directoryIn, 'kind');
  let socketPath = join(directory, 'sock');
  if (listen === 'unix' && Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    await rm(directory, { recursive: true, force: true });
    throw new Error(`The collector socket path ${socketPath} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket allows; set TMPDIR to a shorter directory.`);
  }
  const secret = listen === 'tcp' ? randomBytes(SECRET_BYTES) : undefined;
  const streams: Stream[] = [];
  // TCP connections that have not sent the secret yet.
  const unproven = new Set<Socket>();
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
    lastWord: (stream) => {
      const at = streams.indexOf(stream);
      if (at >= 0) streams.splice(at, 1);
      for (let i = streams.length - 1; i >= 0; i--) {
        const s = streams[i];
        if (s !== stream && s.announced && s.pid === stream.pid && s.state === 'open' && s.recording.end === undefined) return s;
      }
      return undefined;
    },
  };
  const admit = (socket: Socket): Stream => {
    const stream = new Stream(++connections, socket, options, chunkListeners, admission);
    live.add(stream);
    void stream.closed.then(() => live.delete(stream));
    const pending = streams.filter((s) => !s.announced && s.state === 'open').length;
    streams.push(stream);
    if (pending >= MAX_PENDING) stream.refuse(`${MAX_PENDING} other connections were already waiting to say HELLO`);
    return stream;
  };
  const server: Server = createServer((socket) => {
    if (secret === undefined) {
      admit(socket);
      return;
    }
    if (unproven.size >= MAX_PENDING) {
      socket.destroy();
      return;
    }
    unproven.add(socket);
    socket.once('close', () => unproven.delete(socket));
    authenticate(socket, secret, options.secretDeadlineMs ?? SECRET_DEADLINE_MS, (rest) => {
      unproven.delete(socket);
      const stream = admit(socket);
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
      if (options.grantTo !== undefined) await grantFolder(directory, socketPath, options.grantTo);
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
      for (const socket of unproven) socket.destroy();
      const all = [...live];
      await Promise.all(all.map((s) => s.finish(options.finishMs ?? FINISH_MS)));
      await stopped;
      await rm(directory, { recursive: true, force: true });
      await options.onClosed?.();
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
