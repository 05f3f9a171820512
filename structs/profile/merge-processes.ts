// Several processes' recordings -> one Recording (`record --children`): each process keeps its
// own threads and samples, its definitions are renumbered into the merged id spaces (a method
// both processes ran, same module and token, is one function there), its thread names
// gain a "[pid name] " prefix, and the recording's process table says which thread is whose.
// Request seqs are numbered per stream, so each process's get merged seqs of their own, the
// REQUEST records' and the samples' marks alike.
// Processes on one machine share CLOCK_MONOTONIC, so their sample times interleave as they are.
// The ids, keys and names are the live merge's too (merged-ids.ts).
//
// The first part is the launched process: its HELLO and END are the recording's, so a viewer
// that knows one process sees the launched one, with the children's threads beside its own.

import { EventFlags, SampleFlags, STACK_FLAGS, OffsetKind } from '../wire/records.js';
import { INCOMPLETE_STACK_FUNCTION_ID, Recording, type ProcessInfo } from './recording.js';
import { frameKey, functionKey, MergedIds, moduleKey, processThreadName, summedStats } from './merged-ids.js';
import { mergeTimelines } from './timeline-merge.js';

export { processPrefix } from './merged-ids.js';

export interface ProcessPart {
  readonly process: ProcessInfo;
  /** A recording that has its HELLO. */
  readonly recording: Recording;
}

/** One part's ids of one kind -> the merged recording's. */
class IdMap {
  private readonly ids = new Map<number, number>();
  set(id: number, mapped: number): void {
    this.ids.set(id, mapped);
  }
  get(id: number): number {
    const mapped = this.ids.get(id);
    if (mapped === undefined) throw new Error(`id ${id} was not renumbered`);
    return mapped;
  }
}

interface PartIds {
  threads: Map<number, number>;
  functions: IdMap;
  modules: IdMap;
  frames: IdMap;
  strings: IdMap;
  /** New wire stack id of the part's stack 0. */
  stackBase: number;
  /** The merged seq of a request seq of the part's (given on first sight: a sample's mark or the REQUEST). */
  request(seq: number): number;
}

export function mergeProcesses(parts: readonly ProcessPart[]): Recording {
  const first = parts[0]?.recording.meta;
  if (first === undefined) throw new Error('mergeProcesses needs a first recording with its HELLO.');
  const out = new Recording();
  out.sink.onHello({
    pid: first.pid, flags: first.flags, mono: first.startMono, unixNs: first.startUnixNs, intervalNs: first.intervalNs,
    wallThreadsPerTick: first.wallThreadsPerTick, runtimeVersion: first.runtimeVersion, profilerVersion: first.profilerVersion,
  });
  let nextThread = 1;
  let nextStack = 1;
  const defined = { functions: new MergedIds(), modules: new MergedIds(), frames: new MergedIds(), strings: new MergedIds() };
  const ids: PartIds[] = [];
  let nextRequest = 1;
  for (const { process, recording: rec } of parts) {
    // Each part gets its own id spaces so that function 7 of one process is not function 7 of another.
    const requests = new Map<number, number>();
    const request = (seq: number): number => {
      let merged = requests.get(seq);
      if (merged === undefined) requests.set(seq, (merged = nextRequest++));
      return merged;
    };
    const p: PartIds = { threads: new Map(), functions: new IdMap(), modules: new IdMap(), frames: new IdMap(), strings: new IdMap(), stackBase: nextStack, request };
    ids.push(p);
    for (const m of rec.modules()) {
      const [id, fresh] = defined.modules.intern(moduleKey(m));
      p.modules.set(m.id, id);
      if (fresh) out.sink.onModule({ moduleId: id, kind: m.kind, mvid: m.mvid, path: m.path });
    }
    const functions = rec.functions().filter((fn) => fn.id !== INCOMPLETE_STACK_FUNCTION_ID);
    for (const fn of functions) {
      const moduleId = fn.moduleId === 0 ? 0 : p.modules.get(fn.moduleId);
      const module = fn.moduleId === 0 ? fn.module : '';
      const [id, fresh] = defined.functions.intern(functionKey({ kind: fn.kind, name: fn.name, module, moduleId, file: fn.file, token: fn.token }));
      p.functions.set(fn.id, id);
      if (fresh) out.sink.onFunction({ functionId: id, kind: fn.kind, name: fn.name, module, file: fn.file, moduleId, token: fn.token });
    }
    // A v1 recording's stacks are function ids: each function is the frame of the same id.
    const frames = rec.hasFrames ? rec.frames() : functions.map((fn) => ({ id: fn.id, functionId: fn.id, offsetKind: OffsetKind.None, offset: 0 }));
    for (const f of frames) {
      const functionId = p.functions.get(f.functionId);
      const [id, fresh] = defined.frames.intern(frameKey(functionId, f.offsetKind, f.offset));
      p.frames.set(f.id, id);
      if (fresh) out.sink.onFrame({ frameId: id, functionId, offsetKind: f.offsetKind, offset: f.offset });
    }
    for (const [stringId, text] of rec.strings()) {
      const [id, fresh] = defined.strings.intern(text);
      p.strings.set(stringId, id);
      if (fresh) out.sink.onString({ stringId: id, text });
    }
    const threadIds: number[] = [];
    for (const t of rec.threads()) {
      const id = nextThread++;
      p.threads.set(t.id, id);
      threadIds.push(id);
      out.sink.onThread({ threadId: id, osTid: t.osTid, clrThreadId: t.clrThreadId, mono: t.firstSeenMono, name: processThreadName(process, t.name, t.osTid) });
    }
    for (let s = 0; s < rec.stackCount; s++) {
      const all = rec.stackFrameIds(s);
      const frames = all.length > 0 && all[all.length - 1] === INCOMPLETE_STACK_FUNCTION_ID ? all.subarray(0, all.length - 1) : all;
      out.sink.onStack(p.stackBase + s, rec.stackFlags(s) & STACK_FLAGS, Uint32Array.from(frames, (f) => p.frames.get(f)));
    }
    nextStack += rec.stackCount;
    out.addProcess(process, threadIds);
  }

  mergeSamples(parts, ids, out);
  mergeEvents(parts, ids, out);
  mergeTimelines(parts.map((part, k) => ({
    recording: part.recording,
    thread: (id: number) => ids[k].threads.get(id) as number,
    string: (id: number) => ids[k].strings.get(id),
    request: ids[k].request,
    pid: part.process.pid,
  })), out.sink);
  const stats = parts.map((part) => part.recording.stats).filter((s) => s !== undefined);
  if (stats.length > 0) out.sink.onStats(summedStats(stats));
  parts.forEach((part, k) => {
    for (const t of part.recording.threads()) {
      const id = ids[k].threads.get(t.id) as number;
      if (t.ended) out.sink.onThreadEnd({ threadId: id, mono: t.lastSeenMono });
      else out.sink.onThread({ threadId: id, osTid: t.osTid, clrThreadId: t.clrThreadId, mono: t.lastSeenMono, name: out.thread(id)?.name ?? '' });
    }
  });
  const end = parts[0].recording.end;
  if (end !== undefined) out.sink.onEnd(end);
  out.finish();
  return out;
}

/** Every part's samples in one time order (each part's own order kept among equal times). */
function mergeSamples(parts: readonly ProcessPart[], ids: readonly PartIds[], out: Recording): void {
  const columns = parts.map((part) => part.recording.sampleColumns());
  const next = columns.map(() => 0);
  const values = new Float64Array(3);
  const sampleFlags = SampleFlags.Cpu | SampleFlags.Wall;
  // Async chains: each part's chain becomes TASKs of the merged recording (names renumbered with
  // the strings), defined at its first sample; a sample names its chain's innermost task.
  const chainTask = parts.map(() => new Map<number, number>());
  let nextTask = 1;
  const taskOf = (k: number, chain: number): number => {
    let task = chainTask[k].get(chain);
    if (task === undefined) {
      const names = parts[k].recording.asyncChain(chain);
      task = nextTask;
      for (let j = 0; j < names.length; j++, nextTask++) {
        out.sink.onTask({ taskId: nextTask, awaiterId: j + 1 < names.length ? nextTask + 1 : 0, nameId: names[j] === 0 ? 0 : ids[k].strings.get(names[j]) });
      }
      chainTask[k].set(chain, task);
    }
    return task;
  };
  for (;;) {
    let k = -1;
    for (let j = 0; j < columns.length; j++) {
      if (next[j] < columns[j].mono.length && (k < 0 || columns[j].mono[next[j]] < columns[k].mono[next[k]])) k = j;
    }
    if (k < 0) return;
    const c = columns[k];
    const i = next[k]++;
    values[0] = c.mono[i];
    values[1] = c.cpuNs[i];
    values[2] = c.wallNs[i];
    out.sink.onStackSample(ids[k].threads.get(c.threadId[i]) as number, c.flags[i] & sampleFlags, ids[k].stackBase + c.stackId[i], values);
    const seq = parts[k].recording.requestSeqOf(i);
    if (seq !== 0) out.sink.onRequestSample(1, ids[k].request(seq));
    const chain = parts[k].recording.sampleAsyncChain(i);
    if (chain === 0) continue;
    out.sink.onTaskSample(1, taskOf(k, chain));
    const operations = parts[k].recording.sampleOperations(i);
    if (operations !== 0) out.sink.onOperationCount(1, operations);
  }
}

function mergeEvents(parts: readonly ProcessPart[], ids: readonly PartIds[], out: Recording): void {
  const all: { k: number; i: number; mono: number }[] = [];
  parts.forEach((part, k) => {
    const mono = part.recording.events().mono;
    for (let i = 0; i < mono.length; i++) all.push({ k, i, mono: mono[i] });
  });
  all.sort((a, b) => a.mono - b.mono || a.k - b.k || a.i - b.i);
  for (const { k, i } of all) {
    const e = parts[k].recording.events();
    const flags = e.flags[i];
    const stackId = (flags & EventFlags.HasStack) !== 0 ? ids[k].stackBase + e.stackId[i] : 0;
    const labelId = e.labelId[i] !== 0 ? ids[k].strings.get(e.labelId[i]) : 0;
    // Thread 0 is no thread (counts sent without a stack, e.g. exceptions over the stack budget): it stays 0.
    const threadId = e.threadId[i] === 0 ? 0 : ids[k].threads.get(e.threadId[i]) as number;
    out.sink.onEvent(e.kind[i], flags, e.mono[i], threadId, stackId, labelId, e.value1[i], e.value2[i]);
    if (e.messageId[i] !== 0) out.sink.onEventMessage(1, ids[k].strings.get(e.messageId[i]));
  }
}
