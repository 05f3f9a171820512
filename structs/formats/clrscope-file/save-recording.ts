// Recording -> .clrscope bytes: the wire v2 stream re-encoded from the model, plus COUNTERS
// records. Re-encoding (rather than keeping the socket's bytes) works for every Recording,
// including those built by an importer or read from a v1 file, and writes exactly what the
// model holds:
//
//   preamble, HELLO, every MODULE, FUNCTION and FRAME, every STRING, every THREAD (first seen,
//   latest name), a PROCESS per process when it holds several, every STACK (ids 1..n in the model's order), then SAMPLES in recording order
//   with SUSPENSION, COUNTERS and EVENTS records interleaved by time (samples keep their task and
//   request marks, REQUESTs their seqs), then STATS, a THREAD_END
//   (or a repeated THREAD) per thread carrying its last-seen time, the heap snapshots taken of the
//   process (HEAP_SNAPSHOT records), and END when the recording
//   had one. A recording that was cut is saved without END and reopens as cut.

import type { CountersPoint } from '../../api/contract.js';
import { INCOMPLETE_STACK_FUNCTION_ID, type Recording } from '../../profile/recording.js';
import { WireEncoder, type U64 } from '../../wire/encoder.js';
import { EventFlags, OffsetKind, SampleFlags, STACK_FLAGS } from '../../wire/records.js';
import { TimelineCursor } from '../../profile/timeline-cursor.js';
import type { TimelineKind, TimelineRecord } from '../../wire/timeline/timeline-kind.js';
import { COUNTERS_RECORD_TYPE, encodeCountersBody } from './counters-record.js';
import { encodeProcessBody, PROCESS_RECORD_TYPE } from './process-record.js';
import { heapSnapshotRecords } from './heap-record.js';
import { joined } from '../../wire/joined-bytes.js';

export interface SaveOptions {
  /** Bytes a chunk reaches before it is handed out (default 1 MiB). */
  chunkBytes?: number;
  /** Samples written so far, of the total; called once per chunk and at the end. */
  progress?: (done: number, total: number) => void;
  /** Heap snapshots of the recorded process, each a .clrheap file's bytes, kept before END (heap-record.ts). */
  heapSnapshots?: readonly Uint8Array[];
}

const DEFAULT_CHUNK = 1 << 20;

/** A timeline record with its u64 fields as the encoder wants them (see u64). */
function wideFields(kind: TimelineKind, r: TimelineRecord): Record<string, number | U64> {
  const out: Record<string, number | U64> = { ...r };
  for (const f of kind.fields) if (f.type === 'u64') out[f.key] = u64(r[f.key]);
  return out;
}

/** The decoder turns u64s above 2^53 into rounded doubles; the encoder wants those as bigints. */
function u64(v: number): U64 {
  return Number.isSafeInteger(v) ? v : BigInt(v);
}

/** The .clrscope file of `rec` and its counters time series, in chunks of about `chunkBytes`. */
export function* recordingFileChunks(rec: Recording, counters: readonly CountersPoint[], options: SaveOptions = {}): Generator<Uint8Array> {
  const meta = rec.meta;
  if (meta === undefined) throw new Error('The recording has not started (no HELLO arrived), so there is nothing to save.');
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK;
  const enc = new WireEncoder(chunkBytes + 4096);
  const total = rec.sampleCount;

  enc.preamble().hello({
    pid: meta.pid, flags: meta.flags, mono: u64(meta.startMono), unixNs: meta.startUnixNs, intervalNs: meta.intervalNs,
    wallThreadsPerTick: meta.wallThreadsPerTick, runtimeVersion: meta.runtimeVersion, profilerVersion: meta.profilerVersion,
  });
  for (const m of rec.modules()) enc.module({ moduleId: m.id, kind: m.kind, mvid: m.mvid, path: m.path });
  const functions = rec.functions().filter((fn) => fn.id !== INCOMPLETE_STACK_FUNCTION_ID);
  for (const fn of functions) {
    enc.function({ functionId: fn.id, kind: fn.kind, name: fn.name, module: fn.module, file: fn.file, moduleId: fn.moduleId, token: fn.token });
  }
  // A v1 recording's stacks are function ids: each function is the frame of the same id.
  if (rec.hasFrames) for (const f of rec.frames()) enc.frame({ frameId: f.id, functionId: f.functionId, offsetKind: f.offsetKind, offset: f.offset });
  else for (const fn of functions) enc.frame({ frameId: fn.id, functionId: fn.id, offsetKind: OffsetKind.None, offset: 0 });
  for (const [id, text] of rec.strings()) enc.string(id, text);
  // Async chains: one TASK per level of each chain, numbered from 1 in chain order; a sample
  // names its chain's innermost task, so reading the file back gives each sample its chain.
  const chainTask = new Uint32Array(rec.asyncChainCount + 1);
  let nextTask = 1;
  for (let k = 1; k <= rec.asyncChainCount; k++) {
    const names = rec.asyncChain(k);
    chainTask[k] = nextTask;
    for (let j = 0; j < names.length; j++) {
      enc.task({ taskId: nextTask, awaiterId: j + 1 < names.length ? nextTask + 1 : 0, nameId: names[j] });
      nextTask++;
    }
  }
  const threads = rec.threads();
  for (const t of threads) enc.thread({ threadId: t.id, osTid: t.osTid, clrThreadId: u64(t.clrThreadId), mono: u64(t.firstSeenMono), name: t.name });
  // Only a recording of several processes has a process table (PROCESS records).
  for (const p of rec.processes()) {
    enc.raw(PROCESS_RECORD_TYPE, encodeProcessBody(p, threads.filter((t) => rec.processOf(t.id) === p).map((t) => t.id)));
  }
  // The Recording adds the reserved [incomplete stack] root itself when it reads the Incomplete
  // flag back, so the saved frames leave it out. Stack s is saved as id s + 1.
  for (let s = 0; s < rec.stackCount; s++) {
    const all = rec.stackFrameIds(s);
    const frames = all.length > 0 && all[all.length - 1] === INCOMPLETE_STACK_FUNCTION_ID ? all.subarray(0, all.length - 1) : all;
    enc.stack(s + 1, rec.stackFlags(s) & STACK_FLAGS, frames);
  }

  // Counters carry Unix ms; placing them among samples needs them on the target's mono clock.
  const unixToMono = (ms: number): number => meta.startMono + (ms * 1e6 - Number(meta.startUnixNs));
  const timeline = new TimelineCursor(rec);
  const events = rec.events();
  let nextCounters = 0;
  let nextEvent = 0;
  const flushUntil = (mono: number): void => {
    // Timeline records (SUSPENSION, ...) are sent when what they time ends, so that is where they sit.
    timeline.flushUntil(mono, (kind, r) => enc.timeline(kind, wideFields(kind, r)));
    while (nextCounters < counters.length && unixToMono(counters[nextCounters].timeMs) <= mono) {
      enc.raw(COUNTERS_RECORD_TYPE, encodeCountersBody(counters[nextCounters++]));
    }
    while (nextEvent < events.kind.length && events.mono[nextEvent] <= mono) {
      const i = nextEvent++;
      const flags = events.flags[i];
      enc.event({
        kind: events.kind[i], mono: events.mono[i], threadId: events.threadId[i], stackId: events.stackId[i] + 1, labelId: events.labelId[i],
        value1: events.value1[i], value2: (flags & EventFlags.HasValue2) !== 0 ? events.value2[i] : undefined, messageId: events.messageId[i],
      });
    }
  };

  const c = rec.sampleColumns();
  const sampleFlags = SampleFlags.Cpu | SampleFlags.Wall;
  for (let i = 0; i < total; i++) {
    const mono = c.mono[i];
    flushUntil(mono);
    enc.stackSample(mono, c.threadId[i], c.flags[i] & sampleFlags, c.cpuNs[i], c.wallNs[i], c.stackId[i] + 1, chainTask[rec.sampleAsyncChain(i)], rec.sampleOperations(i), rec.requestSeqOf(i));
    if (enc.completeLength >= chunkBytes) {
      options.progress?.(i + 1, total);
      yield enc.takeBytes();
    }
  }
  flushUntil(Number.POSITIVE_INFINITY);

  const stats = rec.stats;
  if (stats !== undefined) {
    enc.stats({
      mono: u64(stats.mono), samples: u64(stats.samples), droppedRingFull: u64(stats.droppedRingFull),
      droppedBufferFull: u64(stats.droppedBufferFull), droppedWatchdog: u64(stats.droppedWatchdog), droppedOther: u64(stats.droppedOther),
      ...(stats.signalLostMono !== undefined ? { signalLostMono: u64(stats.signalLostMono) } : {}),
      ...(stats.cost !== undefined ? { cost: stats.cost } : {}),
    });
  }
  // Last, so samples that followed a thread's end (PROTOCOL.md allows them) keep their order,
  // and the record's time restores the thread's last-seen time.
  for (const t of threads) {
    if (t.ended) enc.threadEnd({ threadId: t.id, mono: u64(t.lastSeenMono) });
    else if (t.lastSeenMono !== t.firstSeenMono) {
      enc.thread({ threadId: t.id, osTid: t.osTid, clrThreadId: u64(t.clrThreadId), mono: u64(t.lastSeenMono), name: t.name });
    }
  }
  const heaps = options.heapSnapshots ?? [];
  if (heaps.length > 0) {
    yield enc.takeBytes(true);
    for (let i = 0; i < heaps.length; i++) yield* heapSnapshotRecords(heaps[i], i);
  }
  const end = rec.end;
  if (end !== undefined) enc.end({ ...end, mono: u64(end.mono) });
  options.progress?.(total, total);
  yield enc.takeBytes(true);
}

/** The whole .clrscope file in one array (for small recordings and tests; large ones use recordingFileChunks). */
export function saveRecording(rec: Recording, counters: readonly CountersPoint[] = []): Uint8Array {
  return joined(Array.from(recordingFileChunks(rec, counters)));
}
