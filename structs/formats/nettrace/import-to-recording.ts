// Turns what a .nettrace file said into clrscope's model by writing it as a wire v1 stream and
// decoding that into a Recording, so an imported trace is held and viewed exactly like a live
// recording. The stream is fed to the decoder in ~1 MiB batches, never built whole.
//
// Sample values (README.md): a type 2 (managed) sample, a thread that was in managed code when
// the sampler suspended the runtime, counts as CPU; type 1 (external) threads were in native
// code or blocked, which the file cannot tell apart, so they count none. In a file another tool
// wrote each sample is worth the time since its thread's previous sample, as PerfView's thread
// time counts it (the sampler's ticks come every few milliseconds on a busy machine, not every
// one); clrscope's own files keep one interval per sample. Either way the CPU is an estimate,
// and the recording says so (HelloFlags.ApproximateCpu).

import type { RecordingLimits } from '../../profile/read-budget.js';
import { Recording } from '../../profile/recording.js';
import { WireDecoder } from '../../wire/decoder.js';
import { WireEncoder } from '../../wire/encoder.js';
import { GC_EVENTS } from '../../wire/timeline/gc-events.js';
import { EndReason, FunctionKind, HelloFlags, OffsetKind, SampleFlags, type SuspensionRecord } from '../../wire/records.js';
import { ThreadSampleType } from './constants.js';
import { ImportEventSamples, NO_STACK } from './import-event-samples.js';
import { ELIDED_FRAMES_NAME } from './method-layout.js';
import type { NettraceImport } from './nettrace-import.js';
import { forwardGaps, sampleGaps, type SampleGaps } from './sample-gaps.js';
import { StackInterner } from './stack-interner.js';
import { UNKNOWN_FRAME_NAME, type FunctionShape } from './symbolizer.js';

/** HELLO.profilerVersion of a trace clrscope did not record. */
export const IMPORTED_PROFILER_VERSION = 'EventPipe SampleProfiler (imported .nettrace)';
/** The runtime's sample profiler period when the header does not say. */
export const DEFAULT_INTERVAL_NS = 1_000_000;
const INCOMPLETE_NAME = '[incomplete stack]';
/** COR_PRF_SUSPEND_REASON "other": what the sample profiler's own suspensions translate to. */
const SUSPEND_REASON_OTHER = 0;

/** How a trace becomes a recording when it is not simply a file being opened. */
export interface ImportOptions {
  /**
   * 'interval': every sample is worth the header's sampling interval. 'gaps': worth the time
   * since the thread's previous sample (sample-gaps.ts), and HELLO's interval is the median of
   * those gaps. 'thread-time': worth the time until the thread's next sample, as PerfView's
   * thread time counts it. Default: 'interval' for clrscope's own files, 'thread-time' for
   * another tool's.
   */
  sampleValues?: 'interval' | 'gaps' | 'thread-time';
  /** HELLO's profiler version instead of IMPORTED_PROFILER_VERSION. */
  profilerVersion?: string;
  /** HelloFlags bits added to HELLO's flags. */
  addFlags?: number;
  /**
   * Drop suspensions with reason "other" in which no GC ran: in a session with the sample
   * profiler these are its own ticks (it suspends the runtime for each), not the program's pauses.
   * Default: true for another tool's file with sample profiler samples in it (TraceEvent's GC
   * statistics follow only suspensions for a GC or a GC's preparation), false otherwise.
   */
  dropSamplerSuspensions?: boolean;
  /** The stream stopped before its end tag: the recording ends without END, so it reads as cut. */
  cut?: boolean;
  /**
   * Allocation, lock-wait and exception events become event samples (import-event-samples.ts);
   * true unless false. A live session sets false: its runtime provider is at Verbose for the
   * method events, so it gets AllocationTick events whose stacks start in the runtime's native
   * code, which no test has held to the profiler's own allocation samples yet.
   */
  eventSamples?: boolean;
  /** What the recording may hold (a file read whole: FILE_READ_LIMITS); none for a live session. */
  limits?: RecordingLimits;
}
const BATCH_BYTES = 1 << 20;

class FunctionTable {
  readonly list: (FunctionShape & { id: number })[] = [];
  private readonly byKey = new Map<string, number>();

  idOf(shape: FunctionShape): number {
    const key = `${shape.kind}\u0000${shape.module}\u0000${shape.name}`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.list.length + 1;
      this.list.push({ ...shape, id });
      this.byKey.set(key, id);
    }
    return id;
  }
}

interface ResolvedStack {
  frames: Uint32Array;
  flags: number;
}

function resolveStacks(imp: NettraceImport, used: Uint8Array, functions: FunctionTable): (ResolvedStack | undefined)[] {
  const byAddress = new Map<number, number>();
  const unknown: FunctionShape = { kind: FunctionKind.Synthetic, name: UNKNOWN_FRAME_NAME, module: '', file: '' };
  const resolved: (ResolvedStack | undefined)[] = [];
  for (let s = 0; s < imp.stacks.count; s++) {
    if (used[s] === 0) continue;
    const ips = imp.stacks.frames(s);
    const ids: number[] = [];
    let flags = 0;
    for (let i = 0; i < ips.length; i++) {
      let id = byAddress.get(ips[i]);
      if (id === undefined) {
        id = functions.idOf(imp.symbolizer.lookup(ips[i]) ?? unknown);
        byAddress.set(ips[i], id);
      }
      ids.push(id);
    }
    // A thread the sampler's suspension stopped at a GC poll shows the poll as its leaf; it was
    // running the poll's caller, which gets the sample.
    let leaf = 0;
    while (leaf < ids.length - 1 && isGcPoll(functions.list[ids[leaf] - 1])) leaf++;
    if (leaf > 0) ids.splice(0, leaf);
    // clrscope's own markers come back as flags: the Recording re-adds the incomplete root.
    const root = ids.length > 0 ? functions.list[ids[ids.length - 1] - 1] : undefined;
    if (root !== undefined && root.kind === FunctionKind.Synthetic && root.name === INCOMPLETE_NAME) {
      ids.pop();
      flags |= SampleFlags.Incomplete;
    }
    if (ids.some((id) => functions.list[id - 1].kind === FunctionKind.Synthetic && functions.list[id - 1].name === ELIDED_FRAMES_NAME)) flags |= SampleFlags.Elided;
    if (ids.length === 0) flags |= SampleFlags.Incomplete;
    resolved[s] = { frames: Uint32Array.from(ids), flags };
  }
  return resolved;
}

/** Thread.PollGC and the worker it calls (`<PollGC>g__PollGCWorker|67_0`): where a thread waits for a suspension to end. */
const GC_POLL_NAMES = /^System\.Threading\.Thread\.(PollGC$|<PollGC>g__PollGCWorker)/;

function isGcPoll(f: FunctionShape): boolean {
  return f.kind === FunctionKind.Managed && GC_POLL_NAMES.test(f.name);
}

export function importToRecording(imp: NettraceImport, options: ImportOptions = {}): Recording {
  const header = imp.header;
  if (header === undefined) throw new Error('importToRecording needs the Trace object first.');
  const scale = header.qpcFrequency > 0 ? 1e9 / header.qpcFrequency : 1;
  const toNs = (ticks: number): number => Math.max(0, Math.round(ticks * scale));
  const nominalNs = header.expectedCpuSamplingRate > 0 ? header.expectedCpuSamplingRate : DEFAULT_INTERVAL_NS;
  const info = imp.recordingInfo;

  const samples = imp.samples;
  // clrscope's own files carry a RecordingInfo event; anything else another tool wrote.
  const foreign = info === undefined;
  const sampleValues = options.sampleValues ?? (foreign ? 'thread-time' : 'interval');
  const dropSamplerSuspensions = options.dropSamplerSuspensions ?? (foreign && samples.count > 0);
  const order = samples.timeOrder();
  let monoNs: Float64Array | undefined;
  let gaps: SampleGaps | undefined;
  if (sampleValues !== 'interval') {
    // Converted once, for the gaps and for the samples' times below.
    monoNs = new Float64Array(samples.count);
    for (let i = 0; i < samples.count; i++) monoNs[i] = toNs(samples.timestamp[i]);
    gaps = sampleValues === 'gaps'
      ? sampleGaps(monoNs, samples.thread, samples.count, order, nominalNs)
      : forwardGaps(monoNs, samples.thread, samples.count, order, nominalNs, Number.isFinite(imp.lastTimestamp) ? toNs(imp.lastTimestamp) : Number.POSITIVE_INFINITY);
  }
  const intervalNs = gaps?.typicalNs ?? nominalNs;
  const used = new Uint8Array(imp.stacks.count);
  for (let i = 0; i < samples.count; i++) used[samples.stack[i]] = 1;
  const events = options.eventSamples === false ? new ImportEventSamples() : imp.eventSamples;
  for (let i = 0; i < events.count; i++) if (events.stack[i] !== NO_STACK) used[events.stack[i]] = 1;
  used[StackInterner.EMPTY] = 1;
  const functions = new FunctionTable();
  const stacks = resolveStacks(imp, used, functions);

  const rec = new Recording({ limits: options.limits });
  const decoder = new WireDecoder(rec.sink);
  const enc = new WireEncoder(BATCH_BYTES + 65536);
  const flush = (force: boolean): void => {
    if (!force && enc.completeLength < BATCH_BYTES) return;
    // takeBytes keeps the encoder's stream state: v2 codes each sample against the ones before.
    decoder.push(enc.takeBytes(force));
  };

  const syncNs = toNs(header.syncTimeQpc);
  const startMono = info?.startMonoNs ?? syncNs;
  // A trace whose sync time is before 1970 (a zeroed SYSTEMTIME) has no usable wall clock:
  // its start is given as the epoch rather than as a time no recording can carry.
  const unixNs = BigInt(header.syncTimeUnixMs) * 1_000_000n + BigInt(startMono - syncNs);
  enc.preamble().hello({
    pid: header.processId >>> 0,
    flags: (info?.flags ?? (HelloFlags.Cpu | HelloFlags.Wall)) | HelloFlags.ApproximateCpu | (options.addFlags ?? 0),
    mono: startMono,
    unixNs: unixNs < 0n ? 0n : unixNs,
    intervalNs,
    wallThreadsPerTick: info?.wallThreadsPerTick ?? 0,
    runtimeVersion: info?.runtimeVersion || imp.runtimeVersion,
    profilerVersion: info?.profilerVersion ?? options.profilerVersion ?? IMPORTED_PROFILER_VERSION,
  });
  for (const t of imp.threads) {
    enc.thread({ threadId: t.index + 1, osTid: t.osTid >>> 0, clrThreadId: 0, mono: toNs(t.firstTimestamp), name: imp.threadName(t.osTid) });
  }
  for (const f of functions.list) enc.function({ functionId: f.id, kind: f.kind, name: f.name, module: f.module, file: f.file });
  // A trace's frames are methods: each function is the frame of the same id.
  for (const f of functions.list) enc.frame({ frameId: f.id, functionId: f.id, offsetKind: OffsetKind.None, offset: 0 });

  // The trace's stacks are interned already: each used one becomes a STACK on first use.
  const wireStack = new Int32Array(stacks.length);
  let nextStack = 1;
  for (let k = 0; k < samples.count; k++) {
    const i = order === undefined ? k : order[k];
    const s = samples.stack[i];
    const stack = stacks[s] as ResolvedStack;
    if (wireStack[s] === 0) {
      wireStack[s] = nextStack++;
      enc.stack(wireStack[s], stack.flags, stack.frames);
    }
    const managed = samples.type[i] === ThreadSampleType.Managed;
    const wallNs = gaps === undefined ? intervalNs : gaps.wallNs[i];
    enc.stackSample(monoNs !== undefined ? monoNs[i] : toNs(samples.timestamp[i]), samples.thread[i] + 1,
      SampleFlags.Wall | (managed ? SampleFlags.Cpu : 0), managed ? wallNs : 0, wallNs, wireStack[s]);
    flush(false);
  }
  // Event samples after the samples (they are stream state of their own), in time order. Their
  // labels and messages share one table of strings.
  for (let l = 0; l < events.labels.length; l++) enc.string(l + 1, events.labels[l]);
  for (const i of events.timeOrder()) {
    const s = events.stack[i];
    let stackId = 0;
    if (s !== NO_STACK) {
      const stack = stacks[s] as ResolvedStack;
      if (wireStack[s] === 0) {
        wireStack[s] = nextStack++;
        enc.stack(wireStack[s], stack.flags, stack.frames);
      }
      stackId = wireStack[s];
    }
    enc.event({
      kind: events.kind[i], mono: toNs(events.timestamp[i]), threadId: events.thread[i] + 1, stackId, labelId: events.label[i],
      value1: events.value1[i], value2: events.hasValue2[i] !== 0 ? events.value2[i] : undefined, messageId: events.message[i],
    });
    flush(false);
  }
  for (const s of imp.suspensions.build()) {
    if (dropSamplerSuspensions && s.generation < 0 && s.reason === SUSPEND_REASON_OTHER) continue;
    enc.suspension(scaleSuspension(s, toNs, scale));
  }
  // The runtime's GC events in time order (a file's blocks need not be), for the GC table.
  const gcEvents = [...imp.gcEvents].sort((x, y) => x.mono - y.mono);
  for (const g of gcEvents) enc.timeline(GC_EVENTS, { ...g, mono: toNs(g.mono) });
  if (options.cut !== true) enc.end({ mono: Number.isFinite(imp.lastTimestamp) ? toNs(imp.lastTimestamp) : startMono, reason: EndReason.Detached });
  flush(true);
  decoder.end();
  rec.finish();
  return rec;
}

function scaleSuspension(s: SuspensionRecord, toNs: (ticks: number) => number, scale: number): SuspensionRecord {
  return { ...s, mono: toNs(s.mono), durationNs: Math.round(s.durationNs * scale), suspendNs: Math.round(s.suspendNs * scale) };
}
