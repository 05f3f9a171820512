// Recording -> speedscope JSON: shared frames, and one sampled profile per thread and metric
// (cpu, wall; nanoseconds) whose samples are in the order they were taken, so speedscope's
// time-order view replays each thread; then one profile per event type (`events · alloc-space`,
// all threads, summed per stack). Runs of the same stack on the same thread are written
// as one sample with their summed weight: speedscope draws such a run as one box anyway, and it
// keeps files of long steady recordings small. A recording with async call stacks gets one more
// profile per metric, `async stacks · cpu|wall` (all threads, summed per logical stack: the
// methods awaiting a continuation above it as `[await]` frames; structs/analysis/async-source.ts).
// A recording with HTTP requests gets one more per endpoint and metric, `endpoint · GET /cpu/{ms}
// · cpu|wall` (all threads, summed per stack, logical ones with async stacks): speedscope has no
// labels, so the samples pprof labels with an endpoint (structs/analysis/requests.ts's rule,
// summed by structs/formats/speedscope/endpoint-sums.ts) are a profile of their own, whose CPU
// total is the endpoint's in `report --requests`. The text is produced in pieces so a recording
// of any size is written without one giant string.

import { logicalStacks } from '../../analysis/output-stacks.js';
import { threadLabel } from '../../profile/thread-label.js';
import { frameLabel } from '../../profile/frame-label.js';
import { eventMetricInfo, eventMetricsPresent } from '../../profile/event-metrics.js';
import { eventSumValue, sumEventsByStackThreadLabel, UNSTACKED_FRAME } from '../../profile/event-sums.js';
import type { FrameLines } from '../../profile/frame-lines.js';
import type { Recording } from '../../profile/recording.js';
import { CLRSCOPE_EXPORTER, exporterName } from './exporter-name.js';
import { endpointStackSums } from './endpoint-sums.js';
import { ASYNC_PROFILE_PREFIX, endpointProfileName, EVENT_PROFILE_PREFIX, profileName, type TimeMetric } from './profile-name.js';
import { SPEEDSCOPE_SCHEMA_URL, type SpeedscopeFile } from './speedscope-file.js';

export type SpeedscopeMetric = TimeMetric | 'both';

export interface SpeedscopeOptions {
  /** Which profiles to write per thread (default both: cpu and wall). */
  metric?: SpeedscopeMetric;
  /** The profile group's name (speedscope's title); default names the process. */
  name?: string;
  /** The `exporter` field (default clrscope); the importer recognizes clrscope's own files by its `clrscope` prefix. A recording with estimated CPU gets ESTIMATED_CPU_MARK after it. */
  exporter?: string;
  /** Samples written so far, of the total; called about once per piece. */
  progress?: (done: number, total: number) => void;
  /** Source lines of the recording's frames: frames whose line is known carry `file` and `line`. */
  lines?: FrameLines;
}

const PIECE_CHARS = 1 << 20;

interface ProfilePlan {
  thread: number;
  metric: TimeMetric;
  total: number;
}

/** Sample indexes grouped by thread (a counting sort), so each profile walks only its thread's samples. */
function samplesByThread(rec: Recording, threadIndex: Map<number, number>): { order: Uint32Array; starts: Uint32Array } {
  const { threadId } = rec.sampleColumns();
  const starts = new Uint32Array(threadIndex.size + 1);
  for (let i = 0; i < threadId.length; i++) starts[(threadIndex.get(threadId[i]) ?? 0) + 1]++;
  for (let t = 0; t < threadIndex.size; t++) starts[t + 1] += starts[t];
  const fill = starts.slice(0, threadIndex.size);
  const order = new Uint32Array(threadId.length);
  for (let i = 0; i < threadId.length; i++) order[fill[threadIndex.get(threadId[i]) ?? 0]++] = i;
  return { order, starts };
}

export function* speedscopeJsonChunks(rec: Recording, options: SpeedscopeOptions = {}): Generator<string> {
  const metrics: TimeMetric[] = options.metric === 'cpu' ? ['cpu'] : options.metric === 'wall' ? ['wall'] : ['cpu', 'wall'];
  const threads = rec.threads();
  const threadIndex = new Map<number, number>();
  threads.forEach((t, i) => threadIndex.set(t.id, i));
  const { order, starts } = samplesByThread(rec, threadIndex);
  const cols = rec.sampleColumns();

  // Frames: one per distinct (label, file) among the functions stacks use, in function order.
  const used = new Set<number>();
  for (let s = 0; s < rec.stackCount; s++) for (const f of rec.stackFrames(s)) used.add(f);
  const frameOfFunction = new Map<number, number>();
  const frameKeys = new Map<string, number>();
  const frames: string[] = [];
  const logical = logicalStacks(rec);
  // Mapping every sample makes the [await] functions; their frames come after the recording's.
  if (logical !== undefined) for (let s = 0; s < logical.stackCount; s++) for (const f of logical.stackFrames(s)) used.add(f);
  for (const fn of [...rec.functions(), ...(logical?.awaitFunctions() ?? [])]) {
    if (!used.has(fn.id)) continue;
    const name = frameLabel(fn);
    const key = `${name}\u0000${fn.file}`;
    let index = frameKeys.get(key);
    if (index === undefined) {
      index = frames.length;
      frameKeys.set(key, index);
      frames.push(fn.file !== '' ? `{"name":${JSON.stringify(name)},"file":${JSON.stringify(fn.file)}}` : `{"name":${JSON.stringify(name)}}`);
    }
    frameOfFunction.set(fn.id, index);
  }
  // Frames whose source line is known: one speedscope frame per (label, file, line).
  const lines = rec.hasFrames ? options.lines : undefined;
  const frameOfWireFrame = new Map<number, number>();
  const frameAt = (wireFrame: number, functionId: number): number => {
    if (lines === undefined) return frameOfFunction.get(functionId) ?? 0;
    let index = frameOfWireFrame.get(wireFrame);
    if (index !== undefined) return index;
    const at = lines.of(wireFrame);
    const fn = rec.functionInfo(functionId);
    if (at === null || fn === undefined) {
      index = frameOfFunction.get(functionId) ?? 0;
    } else {
      const name = frameLabel(fn);
      const key = `${name}\u0000${at.file}\u0000${at.line}`;
      index = frameKeys.get(key);
      if (index === undefined) {
        index = frames.length;
        frameKeys.set(key, index);
        frames.push(`{"name":${JSON.stringify(name)},"file":${JSON.stringify(at.file)},"line":${at.line}}`);
      }
    }
    frameOfWireFrame.set(wireFrame, index);
    return index;
  };
  if (lines !== undefined) for (let s = 0; s < rec.stackCount; s++) rec.stackFrameIds(s).forEach((w, i) => frameAt(w, rec.stackFrames(s)[i]));
  const stackText: (string | undefined)[] = [];
  const stackJson = (stackId: number): string => {
    let text = stackText[stackId];
    if (text === undefined) {
      const f = rec.stackFrames(stackId);
      const w = rec.stackFrameIds(stackId);
      const parts: number[] = [];
      for (let i = f.length - 1; i >= 0; i--) parts.push(frameAt(w[i], f[i]));
      text = `[${parts.join(',')}]`;
      stackText[stackId] = text;
    }
    return text;
  };

  // The stacks the summed profiles name: logical with async stacks (structs/analysis/output-stacks.ts).
  const logicalText: (string | undefined)[] = [];
  const logicalJson = (stackId: number): string => {
    if (logical === undefined) return stackJson(stackId);
    let text = logicalText[stackId];
    if (text === undefined) {
      const f = logical.stackFrames(stackId);
      const w = logical.stackFrameIds(stackId);
      const parts: number[] = [];
      for (let i = f.length - 1; i >= 0; i--) parts.push(f[i] >= 0xe0000000 && f[i] !== 0xffffffff ? frameOfFunction.get(f[i]) ?? 0 : frameAt(w[i], f[i]));
      text = `[${parts.join(',')}]`;
      logicalText[stackId] = text;
    }
    return text;
  };

  // The profiles of every thread summed per stack: async stacks, endpoints, event types.
  const summedProfiles: string[] = [];
  const pushSummed = (name: string, sums: { forEach(each: (v: number, stackId: number) => void): void }): void => {
    const samples: string[] = [];
    const weights: number[] = [];
    sums.forEach((v, stackId) => {
      if (v <= 0) return;
      samples.push(logicalJson(stackId));
      weights.push(v);
    });
    if (samples.length === 0) return;
    const total = weights.reduce((a, b) => a + b, 0);
    summedProfiles.push(`{"type":"sampled","name":${JSON.stringify(name)},"unit":"nanoseconds","startValue":0,"endValue":${total},"samples":[${samples.join(',')}],"weights":[${weights.join(',')}]}`);
  };
  if (logical !== undefined) {
    const lc = logical.sampleColumns();
    for (const metric of metrics) {
      const values = metric === 'cpu' ? lc.cpuNs : lc.wallNs;
      const sums = new Float64Array(logical.stackCount);
      for (let i = 0; i < values.length; i++) sums[lc.stackId[i]] += values[i];
      pushSummed(`${ASYNC_PROFILE_PREFIX}${metric}`, sums);
    }
  }
  // The same stacks as the async profiles, so an endpoint's await chains are there too, as in pprof's labelled samples.
  for (const e of endpointStackSums(rec, (logical ?? rec).sampleColumns())) {
    for (const metric of metrics) pushSummed(endpointProfileName(e.endpoint, metric), e[metric]);
  }
  if ((options.metric === undefined || options.metric === 'both') && rec.eventCount > 0) {
    const sums = sumEventsByStackThreadLabel(rec);
    // Events without a stack hang under a frame of their own, after the functions' frames.
    let unstacked = -1;
    for (const info of eventMetricsPresent(rec).map(eventMetricInfo)) {
      const samples: string[] = [];
      const weights: number[] = [];
      for (const sum of sums) {
        const v = eventSumValue(sum, info.metric);
        if (v <= 0) continue;
        if (sum.stackId < 0 && unstacked < 0) {
          unstacked = frames.length;
          frames.push(`{"name":${JSON.stringify(UNSTACKED_FRAME)}}`);
        }
        samples.push(sum.stackId < 0 ? `[${unstacked}]` : stackJson(sum.stackId));
        weights.push(v);
      }
      if (samples.length === 0) continue;
      const total = weights.reduce((a, b) => a + b, 0);
      const unit = info.unit === 'count' ? 'none' : info.unit;
      summedProfiles.push(`{"type":"sampled","name":${JSON.stringify(`${EVENT_PROFILE_PREFIX}${info.metric}`)},"unit":"${unit}","startValue":0,"endValue":${total},"samples":[${samples.join(',')}],"weights":[${weights.join(',')}]}`);
    }
  }

  const plans: ProfilePlan[] = [];
  for (const metric of metrics) {
    const values = metric === 'cpu' ? cols.cpuNs : cols.wallNs;
    threads.forEach((_t, thread) => {
      let total = 0;
      for (let k = starts[thread]; k < starts[thread + 1]; k++) total += values[order[k]];
      if (total > 0) plans.push({ thread, metric, total });
    });
  }
  let active = 0;
  plans.forEach((p, i) => { if (p.metric === plans[0].metric && p.total > plans[active].total) active = i; });
  const work = plans.reduce((n, p) => n + starts[p.thread + 1] - starts[p.thread], 0);
  let done = 0;

  let piece = `{"$schema":${JSON.stringify(SPEEDSCOPE_SCHEMA_URL)},"shared":{"frames":[${frames.join(',')}]},"profiles":[`;
  for (let p = 0; p < plans.length; p++) {
    const { thread, metric, total } = plans[p];
    const t = threads[thread];
    const values = metric === 'cpu' ? cols.cpuNs : cols.wallNs;
    const name = profileName(threadLabel(t, t.id), t.osTid, metric);
    piece += `${p > 0 ? ',' : ''}{"type":"sampled","name":${JSON.stringify(name)},"unit":"nanoseconds","startValue":0,"endValue":${total},"samples":[`;
    // Two walks with the same run merging: samples first, then their weights.
    for (const field of ['samples', 'weights'] as const) {
      if (field === 'weights') piece += '],"weights":[';
      let first = true;
      let runStack = -1;
      let runWeight = 0;
      const emit = (): void => {
        piece += `${first ? '' : ','}${field === 'samples' ? stackJson(runStack) : String(runWeight)}`;
        first = false;
      };
      for (let k = starts[thread]; k < starts[thread + 1]; k++) {
        const i = order[k];
        const v = values[i];
        if (v <= 0) continue;
        const s = cols.stackId[i];
        if (s === runStack) {
          runWeight += v;
          continue;
        }
        if (runStack >= 0) emit();
        runStack = s;
        runWeight = v;
        if (piece.length >= PIECE_CHARS) {
          yield piece;
          piece = '';
        }
      }
      if (runStack >= 0) emit();
    }
    piece += ']}';
    done += starts[thread + 1] - starts[thread];
    options.progress?.(done, work);
  }
  for (const json of summedProfiles) {
    piece += `${plans.length > 0 || json !== summedProfiles[0] ? ',' : ''}${json}`;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  const meta = rec.meta;
  const groupName = options.name ?? (meta !== undefined && meta.pid !== 0 ? `clrscope recording of pid ${meta.pid}` : 'clrscope recording');
  const exporter = exporterName(options.exporter ?? CLRSCOPE_EXPORTER, meta?.approximateCpu === true);
  piece += `],"name":${JSON.stringify(groupName)},"activeProfileIndex":${active},"exporter":${JSON.stringify(exporter)}}`;
  yield piece;
}

/** The speedscope file as one JSON string. */
export function toSpeedscopeJson(rec: Recording, options: SpeedscopeOptions = {}): string {
  return Array.from(speedscopeJsonChunks(rec, options)).join('');
}

/** The speedscope file as an object (parsed back from the same text the streaming writer produces). */
export function toSpeedscope(rec: Recording, options: SpeedscopeOptions = {}): SpeedscopeFile {
  return JSON.parse(toSpeedscopeJson(rec, options)) as SpeedscopeFile;
}
