// Recording -> gzipped pprof (profile.proto), readable by `go tool pprof` and anything else
// that speaks pprof. Samples with the same stack on the same thread are merged, since pprof
// keeps no timestamps per sample and one row per (stack, thread) is what its views need.

import {
  Function as PprofFunction, Label, Line, Location, Mapping, Profile, Sample, StringTable, ValueType,
} from 'pprof-format';
import { AWAIT_FUNCTION_BASE } from '../../analysis/async-source.js';
import { logicalStacks } from '../../analysis/output-stacks.js';
import { APPROXIMATE_CPU_COMMENT, ownComment } from './pprof-comments.js';
import { StackThreadSums, type StackThreadSum } from '../../profile/aggregate.js';
import { requestsOf, sampleRequests, type RequestInfo } from '../../analysis/requests.js';
import type { SampleColumnViews } from '../../profile/sample-columns.js';
import { frameLabel, type FunctionInfo } from '../../profile/frame-label.js';
import type { FrameLines } from '../../profile/frame-lines.js';
import type { Recording } from '../../profile/recording.js';
import { FunctionKind } from '../../wire/records.js';
import { eventMetricInfo, eventMetricsPresent } from '../../profile/event-metrics.js';
import { eventSumValue, sumEventsByStackThreadLabel, UNSTACKED_FRAME } from '../../profile/event-sums.js';
import { connectionLostSentence } from '../../profile/stream-end.js';

// Still exported from here: the exporter's tests (and the fallback's integration test) read it beside the writer.
export { APPROXIMATE_CPU_COMMENT };

/**
 * pprof's `systemName` is the name before demangling. go tool pprof treats a function whose
 * name equals its systemName as not yet demangled and "simplifies" it like a C++ name,
 * cutting every `<...>`: `List<int>.Add` became `List.Add`, `Db+<QueryAsync>d__0.MoveNext`
 * became `Db+d__0.MoveNext` (google/pprof internal/symbolizer, demangleSingleFunction). So it
 * is set only where it differs from the name: a native frame's raw symbol (its name carries
 * the library). Managed names are already what the runtime calls the method: no systemName.
 */
function systemNameOf(fn: FunctionInfo, strings: StringTable): number {
  return fn.kind === FunctionKind.Native && fn.module !== '' && fn.name !== '' ? strings.dedup(fn.name) : 0;
}

/** The comment a pprof file with async call stacks carries (README, "Async stacks"). */
export const ASYNC_STACKS_COMMENT = 'Async call stacks: a sample taken in an async method\'s continuation has the methods awaiting it above its state machine\'s MoveNext, one "[await] Ns.Type.Method" frame each, in place of the thread pool frames; the wall time of an operation suspended at the leaf of its chain has its whole chain above a "[suspended]" frame (thread "[async operations]", no CPU); such samples carry the label "async stack"="logical".';

export interface PprofOptions {
  /** Async call stacks in place of physical ones where the recording has them (default: when it has any). */
  asyncStacks?: boolean;
  /**
   * The samples already summed per stack and thread, for a recording that does not keep its
   * samples (an export read back from a long session's stream a batch at a time). Physical
   * stacks only: the async splice needs each sample.
   */
  summed?: StackThreadSums;
}

/**
 * Builds the profile message; toPprof() encodes and gzips it. With `lines`, frames whose
 * source line is known get a location of their own with that line, and functions their source
 * file, so `go tool pprof -lines` and `-list` work. A recording with async call stacks is
 * written with its logical stacks (one profile, so pprof's totals stay the samples' own), the
 * spliced samples labelled; `asyncStacks: false` writes the physical ones.
 */
export function buildPprofProfile(rec: Recording, lines?: FrameLines, options: PprofOptions = {}): Profile {
  // Summed samples are physical: a caller that summed a recording with async stacks would write them without their [await] frames.
  if (options.summed !== undefined && rec.asyncChainCount > 0 && options.asyncStacks !== false) throw new Error('A recording with async call stacks was summed before its pprof was written: its logical stacks would be lost.');
  const logical = options.summed === undefined ? logicalStacks(rec, options.asyncStacks ?? true) : undefined;
  // Summed first: mapping the samples makes the [await] functions the tables below need.
  let summed = options.summed;
  if (summed === undefined) {
    summed = new StackThreadSums();
    summed.add((logical ?? rec).sampleColumns());
  }
  // With HTTP requests: the samples a request holds summed apart, labelled with it (below).
  const requestSums = options.summed === undefined ? sumsByRequest(rec, (logical ?? rec).sampleColumns()) : undefined;
  const sums: (StackThreadSum & { request?: RequestInfo })[] = requestSums ?? summed.list;
  const stackFramesOf = (s: number): Uint32Array => (logical ?? rec).stackFrames(s);
  const stackFrameIdsOf = (s: number): Uint32Array => (logical ?? rec).stackFrameIds(s);
  const strings = new StringTable();
  const valueType = (type: string, unit: string): ValueType => new ValueType({ type: strings.dedup(type), unit: strings.dedup(unit) });
  // Order matters to users: `-sample_index=cpu` / `=wall` select by name, tools default to index 0 otherwise.
  const sampleType = [valueType('samples', 'count'), valueType('wall', 'nanoseconds'), valueType('cpu', 'nanoseconds')];
  // Event sample types follow, only those the recording has events for, so CPU-only files stay as they were.
  const eventMetrics = eventMetricsPresent(rec).map(eventMetricInfo);
  for (const m of eventMetrics) sampleType.push(valueType(m.metric, m.unit));

  const mappingIdByModule = new Map<string, number>();
  const mappings: Mapping[] = [];
  const functions: PprofFunction[] = [];
  const locations: Location[] = [];
  // pprof ids must be non-zero; wire ids may be 0, so each function gets a dense id from 1.
  const locationIdByFunction = new Map<number, number>();
  const addMapping = (module: string): number => {
    const mappingId = mappings.length + 1;
    // hasFunctions tells pprof the names are already resolved, so it never tries to symbolize.
    mappings.push(new Mapping({ id: mappingId, filename: strings.dedup(module), hasFunctions: true }));
    mappingIdByModule.set(module, mappingId);
    return mappingId;
  };
  // pprof presents the first mapping as the profiled program ("File: ..."): make it the
  // assembly with the entry point rather than whichever library happened to come first.
  const all = [...rec.functions(), ...(logical?.awaitFunctions() ?? [])];
  const entry = all.find((fn) => fn.kind === FunctionKind.Managed && /\.<?Main>?(\$|$)/.test(fn.name) && fn.module !== '')
    ?? all.find((fn) => fn.kind === FunctionKind.Managed && fn.module !== '');
  if (entry !== undefined) addMapping(entry.module);
  lines?.resolveAll();
  const pprofFunctionOf = new Map<number, { id: number; mappingId: number }>();
  for (const fn of all) {
    const id = functions.length + 1;
    const name = strings.dedup(frameLabel(fn));
    const file = lines !== undefined ? lines.fileOf(fn) : fn.file;
    functions.push(new PprofFunction({ id, name, systemName: systemNameOf(fn, strings), filename: strings.dedup(file) }));
    let mappingId = 0;
    if (fn.module !== '') {
      mappingId = mappingIdByModule.get(fn.module) ?? addMapping(fn.module);
    }
    pprofFunctionOf.set(fn.id, { id, mappingId });
    locations.push(new Location({ id: locations.length + 1, mappingId, address: 0, line: [new Line({ functionId: id })] }));
    locationIdByFunction.set(fn.id, locations.length);
  }
  // A location per (function, line) for frames whose line is known.
  const locationIdByFrame = new Map<number, number>();
  const locationIdByLine = new Map<string, number>();
  const locationOf = (frameId: number, functionId: number): number => {
    const awaitFrame = functionId >= AWAIT_FUNCTION_BASE && functionId !== 0xffffffff;
    if (lines === undefined || !rec.hasFrames || awaitFrame) return locationIdByFunction.get(functionId) ?? 0;
    let id = locationIdByFrame.get(frameId);
    if (id !== undefined) return id;
    const at = lines.of(frameId);
    const fn = pprofFunctionOf.get(functionId);
    if (at === null || fn === undefined) {
      id = locationIdByFunction.get(functionId) ?? 0;
    } else {
      const key = `${functionId}:${at.line}`;
      id = locationIdByLine.get(key);
      if (id === undefined) {
        id = locations.length + 1;
        locations.push(new Location({ id, mappingId: fn.mappingId, address: 0, line: [new Line({ functionId: fn.id, line: at.line })] }));
        locationIdByLine.set(key, id);
      }
    }
    locationIdByFrame.set(frameId, id);
    return id;
  };

  const threadIdKey = strings.dedup('thread id');
  const threadNameKey = strings.dedup('thread name');
  // A recording of several processes (record --children) says whose each sample is.
  const byProcess = rec.processes().length > 0;
  const processIdKey = byProcess ? strings.dedup('process id') : 0;
  const processNameKey = byProcess ? strings.dedup('process name') : 0;
  const asyncKey = logical !== undefined ? strings.dedup('async stack') : 0;
  const requestKeys = requestSums === undefined ? undefined : { endpoint: strings.dedup('endpoint'), traceId: strings.dedup('trace_id'), spanId: strings.dedup('span_id') };
  const samples: Sample[] = [];
  const lastMono = summed.lastMono;
  // A stack's location list and a thread's labels are made once and shared by every sample that
  // has them (the encoder only reads them): a long recording has each stack on many threads.
  const locationIdsByStack = new Map<number, number[]>();
  const labelsByThread = new Map<number, Label[]>();
  const asyncLabel = logical !== undefined ? new Label({ key: asyncKey, str: strings.dedup('logical') }) : undefined;
  for (const sum of sums) {
    let locationId = locationIdsByStack.get(sum.stackId);
    if (locationId === undefined) {
      const frameIds = stackFrameIdsOf(sum.stackId);
      locationId = Array.from(stackFramesOf(sum.stackId), (f, i) => locationOf(frameIds[i], f));
      locationIdsByStack.set(sum.stackId, locationId);
    }
    let threadLabels = labelsByThread.get(sum.threadId);
    if (threadLabels === undefined) {
      const thread = rec.thread(sum.threadId);
      threadLabels = [new Label({ key: threadIdKey, num: thread?.osTid ?? sum.threadId })];
      if (thread !== undefined && thread.name !== '') threadLabels.push(new Label({ key: threadNameKey, str: strings.dedup(thread.name) }));
      const process = byProcess ? rec.processOf(sum.threadId) : undefined;
      if (process !== undefined) {
        threadLabels.push(new Label({ key: processIdKey, num: process.pid }));
        if (process.name !== '') threadLabels.push(new Label({ key: processNameKey, str: strings.dedup(process.name) }));
      }
      labelsByThread.set(sum.threadId, threadLabels);
    }
    let label = asyncLabel !== undefined && logical?.isSpliced(sum.stackId) === true ? [...threadLabels, asyncLabel] : threadLabels;
    if (sum.request !== undefined && requestKeys !== undefined) {
      label = [...label,
        new Label({ key: requestKeys.endpoint, str: strings.dedup(sum.request.endpoint) }),
        new Label({ key: requestKeys.traceId, str: strings.dedup(sum.request.traceId) }),
        new Label({ key: requestKeys.spanId, str: strings.dedup(sum.request.spanId) })];
    }
    samples.push(new Sample({ locationId, value: [sum.samples, sum.wallNs, sum.cpuNs, ...eventMetrics.map(() => 0)], label }));
  }
  if (eventMetrics.length > 0) {
    // Events without a stack (exceptions over the profiler's stack budget) hang under one frame that says so.
    let unstackedLocation = 0;
    const unstacked = (): number => {
      if (unstackedLocation !== 0) return unstackedLocation;
      // Function and location ids apart: locations per source line outnumber functions.
      const functionId = functions.length + 1;
      functions.push(new PprofFunction({ id: functionId, name: strings.dedup(UNSTACKED_FRAME) }));
      const id = locations.length + 1;
      locations.push(new Location({ id, line: [new Line({ functionId })] }));
      unstackedLocation = id;
      return id;
    };
    const typeKey = strings.dedup('type');
    const ownerKey = strings.dedup('lock owner thread');
    const ownerIdKey = strings.dedup('lock owner thread id');
    const messageKey = strings.dedup('exception message');
    for (const ev of sumEventsByStackThreadLabel(rec)) {
      const frameIds = ev.stackId < 0 ? undefined : rec.stackFrameIds(ev.stackId);
      const locationId = ev.stackId < 0 || frameIds === undefined ? [unstacked()] : Array.from(rec.stackFrames(ev.stackId), (f, i) => locationOf(frameIds[i], f));
      const value = [0, 0, 0, ...eventMetrics.map((m) => eventSumValue(ev, m.metric))];
      const thread = ev.threadId === 0 ? undefined : rec.thread(ev.threadId);
      const label = [new Label({ key: typeKey, str: strings.dedup(ev.label) })];
      if (thread !== undefined) label.push(new Label({ key: threadIdKey, num: thread.osTid }));
      if (thread !== undefined && thread.name !== '') label.push(new Label({ key: threadNameKey, str: strings.dedup(thread.name) }));
      if (ev.message !== '') label.push(new Label({ key: messageKey, str: strings.dedup(ev.message) }));
      const owner = ev.ownerThreadId === 0 ? undefined : rec.thread(ev.ownerThreadId);
      if (owner !== undefined) {
        label.push(new Label({ key: ownerKey, str: strings.dedup(owner.name !== '' ? owner.name : `thread ${owner.osTid}`) }));
        label.push(new Label({ key: ownerIdKey, num: owner.osTid }));
      }
      const evProcess = byProcess && ev.threadId !== 0 ? rec.processOf(ev.threadId) : undefined;
      if (evProcess !== undefined) {
        label.push(new Label({ key: processIdKey, num: evProcess.pid }));
        if (evProcess.name !== '') label.push(new Label({ key: processNameKey, str: strings.dedup(evProcess.name) }));
      }
      samples.push(new Sample({ locationId, value, label }));
    }
  }

  const meta = rec.meta;
  const comment: number[] = [];
  if (meta !== undefined) {
    comment.push(strings.dedup(ownComment(meta)));
  }
  if (rec.cut) comment.push(strings.dedup('The stream was cut before its END record: the process died or the connection broke.'));
  const lostConnection = connectionLostSentence(rec.end);
  if (lostConnection !== undefined) comment.push(strings.dedup(lostConnection));
  if (meta?.approximateCpu === true) comment.push(strings.dedup(APPROXIMATE_CPU_COMMENT));
  if (logical !== undefined) comment.push(strings.dedup(ASYNC_STACKS_COMMENT));
  const startMono = meta?.startMono ?? 0;
  return new Profile({
    sampleType,
    sample: samples,
    mapping: mappings,
    location: locations,
    function: functions,
    stringTable: strings,
    timeNanos: meta?.startUnixNs ?? 0,
    durationNanos: lastMono > startMono ? lastMono - startMono : 0,
    periodType: valueType('cpu', 'nanoseconds'),
    period: meta?.intervalNs ?? 0,
    comment,
    defaultSampleType: strings.dedup('cpu'),
  });
}

/**
 * The recording as a gzipped pprof profile (the form `go tool pprof` and pprof UIs expect).
 * `gzip` comes from the caller: structs/ runs in browsers too, where Node's zlib is not.
 */
export function toPprof(rec: Recording, gzip: (bytes: Uint8Array) => Uint8Array, lines?: FrameLines, options: PprofOptions = {}): Uint8Array {
  return gzip(buildPprofProfile(rec, lines, options).encode());
}

/**
 * The samples summed per (stack, thread, request) when the recording has HTTP requests
 * (structs/analysis/requests.ts says which samples a request holds), so each request's samples
 * carry its labels; undefined without requests.
 */
function sumsByRequest(rec: Recording, columns: SampleColumnViews): (StackThreadSum & { request?: RequestInfo })[] | undefined {
  const requests = requestsOf(rec);
  if (requests.length === 0) return undefined;
  const tags = sampleRequests(rec, requests);
  if (tags.length !== columns.stackId.length) return undefined;
  const byKey = new Map<string, StackThreadSum & { request?: RequestInfo }>();
  const list: (StackThreadSum & { request?: RequestInfo })[] = [];
  for (let i = 0; i < tags.length; i++) {
    const key = `${columns.threadId[i]}:${columns.stackId[i]}:${tags[i]}`;
    let sum = byKey.get(key);
    if (sum === undefined) {
      sum = { stackId: columns.stackId[i], threadId: columns.threadId[i], samples: 0, cpuNs: 0, wallNs: 0 };
      if (tags[i] >= 0) sum.request = requests[tags[i]];
      byKey.set(key, sum);
      list.push(sum);
    }
    sum.samples += 1;
    sum.cpuNs += columns.cpuNs[i];
    sum.wallNs += columns.wallNs[i];
  }
  return list;
}
