// Recording -> .clrscope bytes: the wire v1 stream re-encoded from the model, plus COUNTERS
// records. Re-encoding (rather than keeping the socket's bytes) works for every Recording,
// including those built by an importer, and writes exactly what the model holds:
//
//   preamble, HELLO, every FUNCTION, every THREAD (first seen, latest name), then SAMPLEs in
//   recording order with SUSPENSION and COUNTERS records interleaved by time, then STATS, a
//   THREAD_END (or a repeated THREAD) per thread carrying its last-seen time, and END when the
//   recording had one. A recording that was cut is saved without END and reopens as cut.

import type { CountersPoint } from '../../api/contract.js';
import { INCOMPLETE_STACK_FUNCTION_ID, type Recording } from '../../profile/recording.js';
import { WireEncoder, type U64 } from '../../wire/encoder.js';
import { COUNTERS_RECORD_TYPE, encodeCountersBody } from './counters-record.js';

export interface SaveOptions {
  /** Bytes a chunk reaches before it is handed out (default 1 MiB). */
  chunkBytes?: number;
  /** Samples written so far, of the total; called once per chunk and at the end. */
  progress?: (done: number, total: number) => void;
}

const DEFAULT_CHUNK = 1 << 20;

/** The decoder turns u64s above 2^53 into rounded doubles; the encoder wants those as bigints. */
function u64(v: number): U64 {
  return Number.isSafeInteger(v) ? v : BigInt(v);
}

/** The .clrscope file of `rec` and its counters time series, in chunks of about `chunkBytes`. */
export function* recordingFileChunks(rec: Recording, counters: readonly CountersPoint[], options: SaveOptions = {}): Generator<Uint8Array> {
  const meta = rec.meta;
  if (meta === undefined) throw new Error('The recording has not started (no HELLO arrived), so there is nothing to save.');
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK;
  let enc = new WireEncoder(chunkBytes + 4096);
  const total = rec.sampleCount;

  enc.preamble().hello({
    pid: meta.pid, flags: meta.flags, mono: u64(meta.startMono), unixNs: meta.startUnixNs, intervalNs: meta.intervalNs,
    wallThreadsPerTick: meta.wallThreadsPerTick, runtimeVersion: meta.runtimeVersion, profilerVersion: meta.profilerVersion,
  });
  for (const fn of rec.functions()) {
    if (fn.id !== INCOMPLETE_STACK_FUNCTION_ID) enc.function({ functionId: fn.id, kind: fn.kind, name: fn.name, module: fn.module, file: fn.file });
  }
  const threads = rec.threads();
  for (const t of threads) enc.thread({ threadId: t.id, osTid: t.osTid, clrThreadId: u64(t.clrThreadId), mono: u64(t.firstSeenMono), name: t.name });

  // Counters carry Unix ms; placing them among samples needs them on the target's mono clock.
  const unixToMono = (ms: number): number => meta.startMono + (ms * 1e6 - Number(meta.startUnixNs));
  const suspensions = rec.suspensions();
  let nextSuspension = 0;
  let nextCounters = 0;
  const flushUntil = (mono: number): void => {
    // SUSPENSION records are sent when the pause ends, so that is where they sit in time.
    while (nextSuspension < suspensions.length && suspensions[nextSuspension].mono + suspensions[nextSuspension].durationNs <= mono) {
      const s = suspensions[nextSuspension++];
      enc.suspension({ mono: u64(s.mono), durationNs: u64(s.durationNs), suspendNs: u64(s.suspendNs), reason: s.reason, generation: s.generation, flags: s.flags });
    }
    while (nextCounters < counters.length && unixToMono(counters[nextCounters].timeMs) <= mono) {
      enc.raw(COUNTERS_RECORD_TYPE, encodeCountersBody(counters[nextCounters++]));
    }
  };

  // The Recording appends the reserved [incomplete stack] root itself when it reads the
  // sample's flags back, so the saved frames leave it out; one view per stack, made once.
  const wireFrames: (Uint32Array | undefined)[] = [];
  const framesOf = (stackId: number): Uint32Array => {
    let frames = wireFrames[stackId];
    if (frames === undefined) {
      const all = rec.stackFrames(stackId);
      frames = all.length > 0 && all[all.length - 1] === INCOMPLETE_STACK_FUNCTION_ID ? all.subarray(0, all.length - 1) : all;
      wireFrames[stackId] = frames;
    }
    return frames;
  };

  const c = rec.sampleColumns();
  for (let i = 0; i < total; i++) {
    const mono = c.mono[i];
    flushUntil(mono);
    enc.sample({ mono: u64(mono), threadId: c.threadId[i], flags: c.flags[i], cpuNs: u64(c.cpuNs[i]), wallNs: u64(c.wallNs[i]), frames: framesOf(c.stackId[i]) });
    if (enc.byteLength >= chunkBytes) {
      options.progress?.(i + 1, total);
      yield enc.bytes();
      enc = new WireEncoder(chunkBytes + 4096);
    }
  }
  flushUntil(Number.POSITIVE_INFINITY);

  const stats = rec.stats;
  if (stats !== undefined) {
    enc.stats({
      mono: u64(stats.mono), samples: u64(stats.samples), droppedRingFull: u64(stats.droppedRingFull),
      droppedBufferFull: u64(stats.droppedBufferFull), droppedWatchdog: u64(stats.droppedWatchdog), droppedOther: u64(stats.droppedOther),
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
  const end = rec.end;
  if (end !== undefined) enc.end({ mono: u64(end.mono), reason: end.reason });
  options.progress?.(total, total);
  yield enc.bytes();
}

/** The whole .clrscope file in one array (for small recordings and tests; large ones use recordingFileChunks). */
export function saveRecording(rec: Recording, counters: readonly CountersPoint[] = []): Uint8Array {
  const chunks = Array.from(recordingFileChunks(rec, counters));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
