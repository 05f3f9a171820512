// A heap snapshot of a running .NET process, taken as dotnet-gcdump takes one and without loading
// anything into it: an EventPipe session over the diagnostics socket with the runtime's heap-walk
// keywords (structs/heap/heap-walk-events.ts). Enabling GCHeapCollect makes the runtime run one
// blocking gen-2 collection that walks the heap and reports every object, reference and root; the
// session is stopped once that collection's GCEnd arrives, and the stream is read to its end.
// The target pays that one collection, plus the session's buffers while the walk streams out.
//
// Why this and not the profiler API (ObjectReferences/RootReferences2 during a forced GC): the
// events need nothing loaded into the process, work on any process with the diagnostics socket
// (attached or launched, .NET 5 and later), and cost the same single collection; the profiler
// API needs clrscope's profiler in the process (one per process, refused after an APM agent) and
// would copy the same graph through callbacks inside the GC's pause.

import { totalmem } from 'node:os';
import { startEventPipeStream, type EventPipeStream } from '../diagnostics/eventpipe-stream.js';
import { EventLevel, EventPipeFormat } from '../../../structs/diagnostics/protocol.js';
import { Provider } from '../../../structs/formats/nettrace/constants.js';
import { NettraceObjectReader } from '../../../structs/formats/nettrace/object-reader.js';
import { NettraceFormatError } from '../../../structs/formats/nettrace/nettrace-format-error.js';
import { HEAP_SNAPSHOT_KEYWORDS } from '../../../structs/heap/heap-walk-events.js';
import { HeapWalkError, HeapWalkReader, type HeapWalkStats } from '../../../structs/heap/heap-walk-reader.js';
import type { HeapSnapshot } from '../../../structs/heap/heap-snapshot.js';
import { UserError } from '../errors/user-error.js';

export interface TakeSnapshotOptions {
  /** Give up when the walk has not ended by then (default 120 s). */
  timeoutMs?: number;
  /** Give up when the collection has not started by then (default 15 s). */
  startTimeoutMs?: number;
  /** The session's buffer in the target, MiB: dotnet-gcdump's 1,024 by default, so a slow reader loses no event. */
  bufferMB?: number;
  socketPath?: string;
  /** Progress lines (the walk's start and end). */
  onProgress?: (line: string) => void;
  /** Type names an earlier walk of the same process learned (structs/heap/heap-walk-reader.ts says why). */
  knownTypeNames?: ReadonlyMap<number, string>;
  /** The objects read so far, every tenth of a second while the walk streams in. */
  onObjects?: (objects: number) => void;
  /** The most objects kept (default: what half this machine's memory holds at BYTES_AN_OBJECT). */
  maxObjects?: number;
}

export interface TakenSnapshot {
  snapshot: HeapSnapshot;
  stats: HeapWalkStats;
  /** False when the process exited or the stream broke before the walk ended, or it was over the budget: what was read is kept. */
  complete: boolean;
  /** The walk described more objects than the budget: the first `stats.objects` are kept. */
  overBudget: boolean;
  /** Milliseconds from asking to the snapshot's graph being built. */
  elapsedMs: number;
  /** Every type name known after this walk, for the next walk of the same process. */
  typeNames: ReadonlyMap<number, string>;
  /** Milliseconds from asking to the walking collection's end (the runtime's part, and the reading that kept up with it). */
  walkMs: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/**
 * What clrscope holds an object with while reading and analysing a snapshot (the reader's columns
 * and address hash, then the dominator tree): 855 MB for 10 M objects read, 989 MB with the
 * analysis (scripts/bench/RESULTS.md), so 100 bytes is the bound it keeps to.
 */
export const BYTES_AN_OBJECT = 100;
const DEFAULT_START_TIMEOUT_MS = 15_000;
/** After StopTracing, how long the runtime may take to flush and close the stream. */
const DRAIN_TIMEOUT_MS = 30_000;

/** Takes one snapshot of process `pid`; every failure is a UserError of one sentence. */
export async function takeHeapSnapshot(pid: number, options: TakeSnapshotOptions = {}): Promise<TakenSnapshot> {
  const started = performance.now();
  const reader = new HeapWalkReader(options.knownTypeNames, options.maxObjects ?? Math.floor(totalmem() / 2 / BYTES_AN_OBJECT));
  const frames = new NettraceObjectReader(reader);
  let walkEnded!: () => void;
  const ended = new Promise<void>((resolve) => { walkEnded = resolve; });
  let walkStarted = false;
  reader.onWalkStart = (gc) => {
    walkStarted = true;
    options.onProgress?.(`Collection ${gc} is walking the heap of process ${pid}…`);
  };
  let walkMs = 0;
  reader.onWalkEnd = () => {
    walkMs = performance.now() - started;
    walkEnded();
  };
  let stream: EventPipeStream;
  try {
    stream = await startEventPipeStream(pid, {
      circularBufferMB: options.bufferMB ?? 1024,
      format: EventPipeFormat.NetTrace,
      requestRundown: false,
      providers: [{ name: Provider.Runtime, keywords: HEAP_SNAPSHOT_KEYWORDS, level: EventLevel.Verbose }],
    }, { onData: (chunk) => frames.push(chunk), ...(options.socketPath !== undefined ? { socketPath: options.socketPath } : {}) });
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`Cannot take a heap snapshot of process ${pid}: ${lowerFirst(err.message)}`, err.exitCode);
    throw err;
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ended.then(() => 'walked' as const),
    stream.ended.then((e) => (e.how === 'broken' ? `broken: ${e.error ?? 'the connection failed'}` : 'closed')),
    new Promise<string>((resolve) => {
      const check = (): void => {
        const waited = performance.now() - started;
        if (walkStarted) options.onObjects?.(reader.objectsSoFar);
        if (!walkStarted && waited >= startTimeoutMs) resolve('no-start');
        else if (waited >= timeoutMs) resolve('timeout');
        else timer = setTimeout(check, 100);
      };
      check();
    }),
  ]);
  if (timer !== undefined) clearTimeout(timer);
  if (outcome === 'walked') {
    // The rest of the walk's events are in the session's buffers: StopTracing flushes them and closes the stream.
    try {
      await stream.stop();
    } catch {
      // The process exited meanwhile: the stream ends on its own.
    }
    const drained = await Promise.race([stream.ended, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), DRAIN_TIMEOUT_MS).unref())]);
    if (drained === undefined) stream.close();
  } else {
    stream.close();
    if (outcome === 'no-start') throw new UserError(`Process ${pid} did not start the heap walk within ${Math.round(startTimeoutMs / 1000)} s (its runtime did not run the collection the session asked for).`);
    if (outcome === 'timeout') throw new UserError(`The heap walk of process ${pid} did not end within ${Math.round(timeoutMs / 1000)} s.`);
  }
  try {
    const result = reader.finish();
    if (reader.overBudget) {
      options.onProgress?.(`Process ${pid}'s heap holds more objects than the budget of ${result.stats.objects.toLocaleString('en-US')}: the snapshot keeps the first ${result.stats.objects.toLocaleString('en-US')} and their references.`);
    } else if (!result.complete && outcome !== 'walked') {
      options.onProgress?.(`Process ${pid}'s stream ended during the heap walk (${outcome}); the snapshot holds the ${result.stats.objects.toLocaleString('en-US')} objects read.`);
    }
    return { ...result, overBudget: reader.overBudget, typeNames: reader.typeNames, elapsedMs: performance.now() - started, walkMs: walkMs || performance.now() - started };
  } catch (err) {
    if (err instanceof HeapWalkError || err instanceof NettraceFormatError) {
      const why = outcome === 'walked' ? '' : ` (the stream ${outcome === 'closed' ? 'closed: the process may have exited' : outcome})`;
      throw new UserError(`Cannot take a heap snapshot of process ${pid}: ${err.message.replace(/\.$/, '')}${why}.`);
    }
    throw err;
  }
}

function lowerFirst(s: string): string {
  return s.length > 0 ? s[0].toLowerCase() + s.slice(1) : s;
}
