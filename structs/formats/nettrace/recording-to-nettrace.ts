// Recording → .nettrace (EventPipe format 4, as the .NET runtime writes it), streamed as chunks
// so a recording of any size is written without holding the whole file.
//
// What goes in (README.md has the reasons):
// - every sample as one Microsoft-DotNETCore-SampleProfiler ThreadSample event at its time, on
//   its thread's OS id, with its stack (its logical stack, `[await]` frames and all, when the
//   recording has async call stacks: structs/analysis/output-stacks.ts); type 2 (managed,
//   PerfView's CPU_TIME) for samples with the CPU flag, type 1 (external) for wall-only samples;
// - the profiler's synthetic threads (OS id 0: `[async operations]`, whose samples are suspended
//   operations' time) each on a made-up thread id above any Linux thread id (SYNTHETIC_TID_BASE),
//   not on a thread 0 that viewers show as a real one;
// - one made-up address range per function, defined by rundown MethodDCEndVerbose events (and
//   ModuleDCEnd per module) at the end of the trace, as the runtime's rundown does;
// - each suspension as the runtime's GC suspend/restart events (and GCStart/GCEnd for a GC);
// - each event sample (allocation, lock wait, exception) as the runtime's GCAllocationTick,
//   ContentionStart/Stop or ExceptionThrown event with its stack (event-sample-events.ts);
// - each HTTP request as ASP.NET Core's RequestStart/RequestStop pair sharing an ActivityId, a
//   start/stop activity to PerfView and TraceEvent (request-events.ts);
// - clrscope's own ThreadInfo and RecordingInfo events for thread names and HELLO's facts.

import { logicalStacks } from '../../analysis/output-stacks.js';
import type { Recording } from '../../profile/recording.js';
import { SampleFlags } from '../../wire/records.js';
import { GC_EVENTS } from '../../wire/timeline/gc-events.js';
import { ThreadSampleType } from './constants.js';
import {
  ClrscopeRecordingInfoEvent, ClrscopeThreadInfoEvent, MethodDCEndVerboseEvent, ModuleDCEndEvent, ThreadSampleEvent,
} from './event-definitions.js';
import { EventSampleEvents } from './event-sample-events.js';
import { gcEventsOf, gcEventsOfRecords } from './gc-events.js';
import { MethodLayout } from './method-layout.js';
import { NettraceFileWriter, type NettraceFileWriterOptions } from './nettrace-file-writer.js';
import {
  clrscopeRecordingInfoPayload, clrscopeThreadInfoPayload, methodVerbosePayload, modulePayload, threadSamplePayload,
} from './runtime-payloads.js';
import { RequestEvents } from './request-events.js';
import { syncPoint } from './sync-time.js';

/**
 * Deepest stack written. TraceEvent keeps a stack's byte size in a 16-bit field (at most 8,190
 * frames); deeper stacks keep their innermost frames and their outermost STACK_KEEP_OUTER frames
 * around a `[frames elided]` frame.
 */
export const MAX_STACK_FRAMES = 4096;
export const STACK_KEEP_OUTER = 64;
/**
 * Thread ids of the profiler's synthetic threads (a thread with OS id 0, such as `[async
 * operations]`): Linux thread ids stay below 2^22 (PID_MAX_LIMIT), so these name no real thread,
 * and clrscope's ThreadInfo event names each.
 */
export const SYNTHETIC_TID_BASE = 0x7fff0000;
/** The runtime's QPC on Linux is CLOCK_MONOTONIC in ns, the clock clrscope's `mono` is. */
export const QPC_FREQUENCY = 1_000_000_000;

export interface NettraceWriteOptions extends NettraceFileWriterOptions {
  /** Called now and then with the samples written so far and the total. */
  onProgress?: (samplesWritten: number, totalSamples: number) => void;
}

const MANAGED_SAMPLE = threadSamplePayload(ThreadSampleType.Managed);
const EXTERNAL_SAMPLE = threadSamplePayload(ThreadSampleType.External);
const PROGRESS_EVERY = 1 << 16;

/** Sample indexes in time order, or undefined when the samples already are (the usual case). */
function timeOrder(mono: Float64Array): Uint32Array | undefined {
  let sorted = true;
  for (let i = 1; i < mono.length && sorted; i++) sorted = mono[i] >= mono[i - 1];
  if (sorted) return undefined;
  const order = new Uint32Array(mono.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  return order.sort((a, b) => mono[a] - mono[b] || a - b);
}

function stackAddresses(frames: Uint32Array, layout: MethodLayout): number[] {
  const ips: number[] = [];
  const push = (functionId: number): void => {
    const ip = layout.address(functionId);
    if (ip === undefined) throw new RangeError(`The recording's stacks name function ${functionId}, which it does not define.`);
    ips.push(ip);
  };
  if (frames.length <= MAX_STACK_FRAMES) {
    for (let i = 0; i < frames.length; i++) push(frames[i]);
    return ips;
  }
  const inner = MAX_STACK_FRAMES - STACK_KEEP_OUTER - 1;
  for (let i = 0; i < inner; i++) push(frames[i]);
  ips.push(layout.elidedAddress());
  for (let i = frames.length - STACK_KEEP_OUTER; i < frames.length; i++) push(frames[i]);
  return ips;
}

/** The file as a sequence of chunks (about `chunkBytes` each, 1 MiB by default). */
export function* nettraceChunks(rec: Recording, options: NettraceWriteOptions = {}): Generator<Uint8Array, void, undefined> {
  const meta = rec.meta;
  // Every sample's stack as every output writes it; reading the columns maps every sample, which
  // makes the [await] functions the layout below needs.
  const logical = logicalStacks(rec);
  const cols = (logical ?? rec).sampleColumns();
  const total = cols.mono.length;
  // The runtime's own GC events when the recording kept them; else made from its suspensions.
  const gcRecords = rec.timeline(GC_EVENTS);
  const gcEvents = gcRecords.length > 0 ? gcEventsOfRecords(gcRecords) : gcEventsOf(rec.suspensions());
  const order = timeOrder(cols.mono);
  const firstSample = total > 0 ? cols.mono[order === undefined ? 0 : order[0]] : Number.POSITIVE_INFINITY;
  const firstGc = gcEvents.length > 0 ? gcEvents[0].timestamp : Number.POSITIVE_INFINITY;
  const eventSamples = new EventSampleEvents(rec);
  const requests = new RequestEvents(rec);
  const fallbackStart = Math.min(firstSample, firstGc, eventSamples.firstTime, requests.firstTime);
  const startMono = meta?.startMono ?? (Number.isFinite(fallbackStart) ? fallbackStart : 0);
  const sync = syncPoint(startMono, meta?.startUnixNs ?? 0n);
  const writer = new NettraceFileWriter({
    syncTimeUnixMs: sync.unixMs,
    syncTimeQpc: sync.qpc,
    qpcFrequency: QPC_FREQUENCY,
    pointerSize: 8,
    processId: meta?.pid ?? 0,
    // Not recorded; 1 keeps per-processor ratios in viewers finite.
    numberOfProcessors: 1,
    expectedCpuSamplingRate: meta?.intervalNs ?? 0,
  }, options);

  const layout = new MethodLayout([...rec.functions(), ...(logical?.awaitFunctions() ?? [])]);
  const threads = rec.threads();
  const osTidOf: number[] = [];
  let synthetic = 0;
  const syntheticThread: boolean[] = [];
  for (const t of threads) {
    syntheticThread[t.id] = t.osTid === 0;
    osTidOf[t.id] = t.osTid !== 0 ? t.osTid : SYNTHETIC_TID_BASE + synthetic++;
  }
  // Runtime-wide events (GC, rundown) name no particular thread in a recording; the runtime
  // writes them on whichever thread raised them, often the main one, the first clrscope saw.
  const runtimeThread = threads.length > 0 ? osTidOf[threads[0].id] : 0;

  let now = Math.min(sync.qpc, startMono, fallbackStart);
  const stackOf = (key: number): number => writer.stackId(key, () => stackAddresses(rec.stackFrames(key), layout));
  // Logical stacks have ids of their own: keyed apart from the events' physical ones.
  const LOGICAL_KEY = 2 ** 32;
  const sampleStackOf = logical === undefined ? stackOf : (key: number): number => writer.stackId(LOGICAL_KEY + key, () => stackAddresses(logical.stackFrames(key), layout));
  const eventTarget = {
    writer,
    stackId: (key: number): number => (key < 0 ? 0 : stackOf(key)),
    // Thread 0 (events counted without a thread) goes where the runtime-wide events go.
    osTid: (threadId: number): number => (threadId === 0 ? runtimeThread : osTidOf[threadId] ?? runtimeThread),
    leafAddress: (key: number): number => {
      if (key < 0) return 0;
      const frames = rec.stackFrames(key);
      return frames.length > 0 ? layout.address(frames[0]) ?? 0 : 0;
    },
  };
  const requestTarget = { writer, fallbackTid: runtimeThread };
  let g = 0;
  /** Writes the GC events, event samples and requests up to `until` (inclusive), merged by time. */
  const writeRuntimeEventsUntil = (until: number): void => {
    for (;;) {
      const gcTime = g < gcEvents.length ? gcEvents[g].timestamp : Number.POSITIVE_INFINITY;
      const eventTime = eventSamples.nextTime;
      const requestTime = requests.nextTime;
      if (gcTime <= eventTime && gcTime <= requestTime && gcTime <= until) {
        writer.writeEvent(gcEvents[g].def, gcEvents[g].tid || runtimeThread, 0, gcTime, gcEvents[g].payload);
        now = Math.max(now, gcTime);
        g++;
      } else if (eventTime <= requestTime && eventTime <= until) {
        eventSamples.writeNext(eventTarget);
        now = Math.max(now, eventTime);
      } else if (requestTime <= until) {
        requests.writeNext(requestTarget);
        now = Math.max(now, requestTime);
      } else {
        return;
      }
    }
  };
  writer.writeEvent(ClrscopeRecordingInfoEvent, runtimeThread, 0, now, clrscopeRecordingInfoPayload(
    startMono, meta?.runtimeVersion ?? '', meta?.profilerVersion ?? '', meta?.flags ?? 0, meta?.wallThreadsPerTick ?? 0,
  ));
  for (const t of threads) writer.writeEvent(ClrscopeThreadInfoEvent, osTidOf[t.id], 0, now, clrscopeThreadInfoPayload(osTidOf[t.id], t.name));

  const { threadId, stackId, flags, mono, cpuNs, wallNs } = cols;
  for (let k = 0; k < total; k++) {
    const i = order === undefined ? k : order[k];
    // A synthetic thread's sample of no time only counts operations suspended at a tick: TraceEvent
    // would count it as a sample (of time) like any, so it stays out.
    if (syntheticThread[threadId[i]] === true && cpuNs[i] === 0 && wallNs[i] === 0) continue;
    const ts = mono[i];
    writeRuntimeEventsUntil(ts);
    const sid = sampleStackOf(stackId[i]);
    writer.writeEvent(ThreadSampleEvent, osTidOf[threadId[i]] ?? 0, sid, ts, (flags[i] & SampleFlags.Cpu) !== 0 ? MANAGED_SAMPLE : EXTERNAL_SAMPLE);
    now = ts;
    writer.maybeSequencePoint();
    const chunk = writer.out.takeChunk();
    if (chunk !== undefined) yield chunk;
    if ((k + 1) % PROGRESS_EVERY === 0) options.onProgress?.(k + 1, total);
  }
  // Runtime events after the last sample, one time step at a time so the output keeps streaming.
  for (;;) {
    const next = Math.min(g < gcEvents.length ? gcEvents[g].timestamp : Number.POSITIVE_INFINITY, eventSamples.nextTime, requests.nextTime);
    if (next === Number.POSITIVE_INFINITY) break;
    writeRuntimeEventsUntil(next);
    writer.maybeSequencePoint();
    const chunk = writer.out.takeChunk();
    if (chunk !== undefined) yield chunk;
  }

  // The rundown, as the runtime writes it when a session ends: every method, then every module.
  for (const m of layout.methods) {
    writer.writeEvent(MethodDCEndVerboseEvent, runtimeThread, 0, now, methodVerbosePayload({
      methodId: m.methodId, moduleId: m.moduleId, startAddress: m.startAddress, size: m.size, token: 0, flags: m.flags,
      namespace: m.namespace, name: m.name, signature: '',
    }));
  }
  for (const m of layout.modules) writer.writeEvent(ModuleDCEndEvent, runtimeThread, 0, now, modulePayload(m.moduleId, m.path));
  writer.finish();
  let chunk: Uint8Array | undefined;
  while ((chunk = writer.out.takeChunk(true)) !== undefined) yield chunk;
  options.onProgress?.(total, total);
}

/** The whole file in one buffer; use nettraceChunks to stream a large recording to disk. */
export function toNettrace(rec: Recording, onProgress?: (samplesWritten: number, totalSamples: number) => void): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (const c of nettraceChunks(rec, { onProgress })) {
    chunks.push(c);
    size += c.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
