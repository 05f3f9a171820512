// A recording seen through its async call stacks (PROTOCOL.md, TASK / TASK_SAMPLES): a sample
// taken while its thread ran an async method's continuation keeps its physical frames from the
// leaf up to that method's state machine frame (`<QueryAsync>d__4.MoveNext`), and above it, in
// place of the thread pool's dispatch frames, the methods awaiting it, one `[await]` frame
// each, up to the root operation:
//
//   [await] Demo.Api.Handle  <-  [await] Demo.Service.GetAsync  <-  Demo.Db+<QueryAsync>d__4.MoveNext  <-  …leaf
//
// so an awaited method's time sits under its logical caller whatever thread ran it. The wall
// time an operation spent suspended at the leaf of its chain (awaiting a timer, I/O, a lock)
// arrives as a wall sample of the profiler's "[async operations]" thread whose stack is a
// `[suspended]` frame (under an `[awaiting Task.Delay]` leaf when the awaited task is known) and
// whose task is the operation: the whole chain goes above `[suspended]`, the operation itself
// included, so a request's suspended time sits under its own chain:
//
//   [await] Demo.Api.Handle  <-  [await] Demo.Service.GetAsync  <-  [suspended]  <-  [awaiting Task.Delay]
//
// Samples
// taken outside any task, and those whose running method's frame is not on their stack (it was
// inlined, or the thread was between continuations), keep their physical stack. The recording is
// not copied: a logical stack is made when a sample first needs it, and the sample column is
// extended as a live recording grows.

import type { FunctionInfo } from '../profile/frame-label.js';
import type { ProcessInfo, Recording, RecordingMeta, SampleColumnViews, ThreadInfo } from '../profile/recording.js';
import { FunctionKind } from '../wire/records.js';
import type { SuspensionRecord } from '../wire/records.js';
import type { SampleSource } from './stack-source.js';

/** Function ids of `[await]` frames start here (the recording's own ids are writer numbers, far below). */
export const AWAIT_FUNCTION_BASE = 0xe0000000;
export const AWAIT_PREFIX = '[await] ';
/** The profiler's synthetic frame at the root of a suspended operation's wall sample (PROTOCOL.md, TASK_SAMPLES). */
export const SUSPENDED_FRAME = '[suspended]';
/** The name of the profiler's synthetic thread those samples belong to. */
export const ASYNC_OPERATIONS_THREAD = '[async operations]';

/** `<QueryAsync>d__4` -> `QueryAsync`; a name of another shape is kept whole. */
export function awaitedMethodName(stateMachine: string): string {
  const m = /^<([^<>]+)>d__\d+$/.exec(stateMachine);
  return m === null ? stateMachine : m[1];
}

export class AsyncSource implements SampleSource {
  private readonly rec: Recording;
  private readonly awaitInfos: FunctionInfo[] = [];
  private readonly awaitByName = new Map<number, number>();
  // (physical stack, chain) -> logical stack id; logical stacks' frames, leaf first.
  private readonly logicalIds = new Map<string, number>();
  private readonly logical: Uint32Array[] = [];
  // Per logical stack: its physical stack and how many `[await]` frames were put above it.
  private readonly origin: [number, number][] = [];
  private stackColumn = new Uint32Array(0);
  private mapped = 0;
  // State machine type name (`<QueryAsync>d__4`) -> the functions named `….<QueryAsync>d__4.MoveNext`.
  private moveNexts: Map<string, FunctionInfo[]> | undefined;
  private functionsSeen = -1;

  constructor(rec: Recording) {
    this.rec = rec;
  }

  get meta(): RecordingMeta | undefined {
    return this.rec.meta;
  }

  get sampleCount(): number {
    return this.rec.sampleCount;
  }

  get stackCount(): number {
    this.catchUp();
    return this.logical.length;
  }

  threads(): ThreadInfo[] {
    return this.rec.threads();
  }

  thread(id: number): ThreadInfo | undefined {
    return this.rec.thread(id);
  }

  processOf(threadId: number): ProcessInfo | undefined {
    return this.rec.processOf(threadId);
  }

  suspensions(): readonly SuspensionRecord[] {
    return this.rec.suspensions();
  }

  functionInfo(id: number): FunctionInfo | undefined {
    if (id >= AWAIT_FUNCTION_BASE && id !== 0xffffffff) return this.awaitInfos[id - AWAIT_FUNCTION_BASE];
    return this.rec.functionInfo(id);
  }

  stackFrames(stackId: number): Uint32Array {
    this.catchUp();
    return this.logical[stackId];
  }

  /**
   * A logical stack's frames as the wire names them (v2 frame ids, v1 function ids) for its
   * physical part, and its `[await]` functions' ids (AWAIT_FUNCTION_BASE and up) above.
   */
  stackFrameIds(stackId: number): Uint32Array {
    this.catchUp();
    const [physical, awaits] = this.origin[stackId];
    const wire = this.rec.stackFrameIds(physical);
    const frames = this.logical[stackId];
    if (awaits === 0) return wire;
    const out = new Uint32Array(frames.length);
    out.set(wire.subarray(0, frames.length - awaits));
    out.set(frames.subarray(frames.length - awaits), frames.length - awaits);
    return out;
  }

  /** Whether a logical stack has `[await]` frames (its sample ran in a task whose frame was found). */
  isSpliced(stackId: number): boolean {
    this.catchUp();
    return this.origin[stackId][1] > 0;
  }

  /** The `[await]` functions made so far (all of them once every sample was mapped: after stackCount). */
  awaitFunctions(): readonly FunctionInfo[] {
    return this.awaitInfos;
  }

  /** The logical stack id of sample i. */
  sampleStack(i: number): number {
    this.catchUp();
    return this.stackColumn[i];
  }

  sampleColumns(): SampleColumnViews {
    this.catchUp();
    const c = this.rec.sampleColumns();
    return { ...c, stackId: this.stackColumn.subarray(0, this.mapped) };
  }

  private catchUp(): void {
    const n = this.rec.sampleCount;
    if (this.mapped === n) return;
    if (this.stackColumn.length < n) {
      const grown = new Uint32Array(Math.max(n, this.stackColumn.length * 2, 1024));
      grown.set(this.stackColumn.subarray(0, this.mapped));
      this.stackColumn = grown;
    }
    const c = this.rec.sampleColumns();
    for (let i = this.mapped; i < n; i++) this.stackColumn[i] = this.logicalStack(c.stackId[i], this.rec.sampleAsyncChain(i));
    this.mapped = n;
  }

  private logicalStack(physical: number, chain: number): number {
    const key = `${physical},${chain}`;
    let id = this.logicalIds.get(key);
    if (id === undefined) {
      const [frames, awaits] = this.splice(physical, chain);
      // Unspliced, a sample's logical stack is its physical one, whatever task it ran in (the
      // key has no comma, so it never meets a (stack, chain) key).
      const plainKey = `${physical}`;
      id = awaits === 0 ? this.logicalIds.get(plainKey) : undefined;
      if (id === undefined) {
        id = this.logical.length;
        this.logical.push(frames);
        this.origin.push([physical, awaits]);
        if (awaits === 0) this.logicalIds.set(plainKey, id);
      }
      this.logicalIds.set(key, id);
    }
    return id;
  }

  /** The logical frames of a physical stack run in a chain, and how many `[await]` frames they have. */
  private splice(physical: number, chain: number): [Uint32Array, number] {
    // A copy: the recording's view may be of a table buffer it later replaces.
    const frames = this.rec.stackFrames(physical).slice();
    if (chain === 0) return [frames, 0];
    const names = this.rec.asyncChain(chain);
    // A suspended operation: its whole chain, the operation first, above `[suspended]`.
    const root = frames.length > 0 ? this.rec.functionInfo(frames[frames.length - 1]) : undefined;
    if (root !== undefined && root.kind === FunctionKind.Synthetic && root.name === SUSPENDED_FRAME && names.length >= 1) {
      const out = new Uint32Array(frames.length + names.length);
      out.set(frames);
      for (let j = 0; j < names.length; j++) out[frames.length + j] = this.awaitFunction(names[j]);
      return [out, names.length];
    }
    // No awaiter known: nothing to put above the method, so its physical callers stay.
    if (names.length < 2) return [frames, 0];
    const running = this.rec.strings().get(names[0]);
    if (running === undefined) return [frames, 0];
    const suffix = `${running}.MoveNext`;
    let at = -1;
    for (let i = 0; i < frames.length; i++) {
      const fn = this.rec.functionInfo(frames[i]);
      if (fn !== undefined && fn.name.endsWith(suffix) && /[.+]$/.test(fn.name.slice(0, fn.name.length - suffix.length))) {
        at = i;
        break;
      }
    }
    if (at < 0) return [frames, 0];
    const out = new Uint32Array(at + names.length);
    out.set(frames.subarray(0, at + 1));
    for (let j = 1; j < names.length; j++) out[at + j] = this.awaitFunction(names[j]);
    return [out, names.length - 1];
  }

  /** The `[await]` function of a task name (a STRING id; 0: unknown). */
  private awaitFunction(nameId: number): number {
    let id = this.awaitByName.get(nameId);
    if (id !== undefined) return id;
    id = AWAIT_FUNCTION_BASE + this.awaitInfos.length;
    const stateMachine = nameId === 0 ? '' : this.rec.strings().get(nameId) ?? '';
    const method = stateMachine === '' ? '?' : awaitedMethodName(stateMachine);
    // The declaring type comes from the state machine's MoveNext, when the recording has exactly
    // one such function (two types may each have a `<Run>d__0`).
    const owners = stateMachine === '' ? [] : this.moveNextsOf(stateMachine);
    const owner = owners.length === 1 ? owners[0] : undefined;
    const type = owner === undefined ? '' : owner.name.slice(0, owner.name.length - `${stateMachine}.MoveNext`.length - 1);
    this.awaitInfos.push(Object.freeze({
      id,
      kind: owner?.kind ?? FunctionKind.Synthetic,
      name: `${AWAIT_PREFIX}${type === '' ? method : `${type}.${method}`}`,
      module: owner?.module ?? '',
      file: owner?.file ?? '',
      moduleId: owner?.moduleId ?? 0,
      token: 0,
    }));
    this.awaitByName.set(nameId, id);
    return id;
  }

  private moveNextsOf(stateMachine: string): FunctionInfo[] {
    const functions = this.rec.functions();
    if (this.moveNexts === undefined || functions.length !== this.functionsSeen) {
      const index = new Map<string, FunctionInfo[]>();
      for (const fn of functions) {
        const m = /[.+](<[^<>]+>d__\d+)\.MoveNext$/.exec(fn.name);
        if (m === null) continue;
        const list = index.get(m[1]);
        if (list === undefined) index.set(m[1], [fn]);
        else list.push(fn);
      }
      this.moveNexts = index;
      this.functionsSeen = functions.length;
    }
    return this.moveNexts.get(stateMachine) ?? [];
  }
}
