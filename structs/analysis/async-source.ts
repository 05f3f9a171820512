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

/**
 * The method of a state machine as the runtime names it: `<QueryAsync>d__4` and a generic
 * method's `<ProcessRequests>d__237`1` -> `QueryAsync`, `ProcessRequests`; a lambda's or a local
 * function's `<<Map>b__2_0>d` -> `<Map>b__2_0` (the compiler's name of the method). A name of
 * another shape (a promise's: `Task.WhenAll`) is kept whole.
 */
export function awaitedMethodName(stateMachine: string): string {
  const m = /^<(.+)>d(?:__\d+)?(?:`\d+)?$/.exec(stateMachine);
  return m === null ? stateMachine : m[1];
}

/**
 * Of a state machine's MoveNext function (`Demo.Db+<QueryAsync>d__4.MoveNext`), the declaring
 * type and the state machine's name as the runtime gives it in TraceOperationBegin: generic
 * arguments the profiler wrote out (`+<ProcessRequests>d__237<System.__Canon>.MoveNext`) become
 * the arity (`<ProcessRequests>d__237`1`). The state machine of a method of a generic class has
 * its class's parameters but no arity in its name (`<ExecuteAsync>d__8`): `plain` is the name
 * without the arity, for that case. Undefined for any other function.
 */
export function stateMachineOfMoveNext(name: string): { type: string; stateMachine: string; plain: string } | undefined {
  const SUFFIX = '.MoveNext';
  if (!name.endsWith(SUFFIX)) return undefined;
  let body = name.slice(0, name.length - SUFFIX.length);
  let arity = '';
  if (body.endsWith('>')) {
    const open = openingBracket(body, body.length - 1);
    if (open < 0) return undefined;
    const head = body.slice(0, open);
    if (!/>d(?:__\d+)?$/.test(head)) return undefined;
    arity = `\`${topLevelCommas(body.slice(open + 1, body.length - 1)) + 1}`;
    body = head;
  }
  const tail = />d(?:__\d+)?$/.exec(body);
  if (tail === null) return undefined;
  const start = openingBracket(body, tail.index);
  if (start < 1 || (body[start - 1] !== '+' && body[start - 1] !== '.')) return undefined;
  return { type: body.slice(0, start - 1), stateMachine: body.slice(start) + arity, plain: body.slice(start) };
}

type StateMachineName = NonNullable<ReturnType<typeof stateMachineOfMoveNext>>;

/** Where the `<` matching the `>` at `close` is, or -1. */
function openingBracket(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (text[i] === '>') depth++;
    else if (text[i] === '<' && --depth === 0) return i;
  }
  return -1;
}

function topLevelCommas(text: string): number {
  let depth = 0;
  let commas = 0;
  for (const ch of text) {
    if (ch === '<') depth++;
    else if (ch === '>') depth--;
    else if (ch === ',' && depth === 0) commas++;
  }
  return commas;
}

export class AsyncSource implements SampleSource {
  private readonly rec: Recording;
  private readonly awaitInfos: FunctionInfo[] = [];
  private readonly awaitByName = new Map<number, number>();
  // The task name (STRING id) of each `[await]` function, by its index in awaitInfos.
  private readonly awaitNames: number[] = [];
  // (physical stack, chain) -> logical stack id; logical stacks' frames, leaf first.
  private readonly logicalIds = new Map<string, number>();
  private readonly logical: Uint32Array[] = [];
  // Per logical stack: its physical stack and how many `[await]` frames were put above it.
  private readonly origin: [number, number][] = [];
  private stackColumn = new Uint32Array(0);
  private mapped = 0;
  // State machine type name (`<QueryAsync>d__4`) -> the functions named `….<QueryAsync>d__4.MoveNext`.
  private readonly moveNexts = new Map<string, FunctionInfo[]>();
  // Function id -> the state machine it is the MoveNext of (null: none).
  private readonly moveNextOf = new Map<number, StateMachineName | null>();
  private functionsSeen = 0;
  // `[await]` functions (index in awaitInfos) named by method alone because no MoveNext of their
  // state machine had been sampled yet: a live recording names them once one arrives.
  private readonly typeless = new Set<number>();
  private typelessTriedAt = 0;
  private renamed = 0;

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

  /**
   * Counts the `[await]` functions that have been renamed since this source was made (a live
   * recording's first samples of an operation may come before any of its MoveNext's): readers
   * that keep labels by function id read them again when it changes.
   */
  get nameGeneration(): number {
    this.catchUp();
    return this.renamed;
  }

  private catchUp(): void {
    if (this.typeless.size > 0 && this.rec.functionCount !== this.typelessTriedAt) this.nameTypeless();
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
    let at = -1;
    for (let i = 0; i < frames.length; i++) {
      const sm = this.stateMachineOf(frames[i]);
      if (sm !== undefined && (sm.stateMachine === running || sm.plain === running)) {
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
    const named = this.awaitInfo(id, stateMachine);
    this.awaitInfos.push(named.info);
    this.awaitNames.push(nameId);
    // Only a compiler's state machine has a MoveNext to wait for (a promise's `Task.WhenAll` has none).
    if (!named.typed && /^<.+>d/.test(stateMachine)) {
      this.typeless.add(id - AWAIT_FUNCTION_BASE);
      this.typelessTriedAt = this.rec.functionCount;
    }
    this.awaitByName.set(nameId, id);
    return id;
  }

  private awaitInfo(id: number, stateMachine: string): { info: FunctionInfo; typed: boolean } {
    const method = stateMachine === '' ? '?' : awaitedMethodName(stateMachine);
    // The declaring type comes from the state machine's MoveNext, when the recording's MoveNexts
    // of that name are all of one type (two types may each have a `<Run>d__0`).
    const owners = stateMachine === '' ? [] : this.moveNextsOf(stateMachine);
    const types = new Set(owners.map((fn) => stateMachineOfMoveNext(fn.name)?.type ?? ''));
    const owner = types.size === 1 ? owners[0] : undefined;
    const type = owner === undefined ? '' : [...types][0];
    const info = Object.freeze({
      id,
      kind: owner?.kind ?? FunctionKind.Synthetic,
      name: `${AWAIT_PREFIX}${type === '' ? method : `${type}.${method}`}`,
      module: owner?.module ?? '',
      file: owner?.file ?? '',
      moduleId: owner?.moduleId ?? 0,
      token: 0,
    });
    // Two types' MoveNexts of one name stay ambiguous however many more arrive.
    return { info, typed: type !== '' || types.size > 1 };
  }

  /** Names the typeless `[await]` functions whose state machine's MoveNext has arrived since. */
  private nameTypeless(): void {
    this.typelessTriedAt = this.rec.functionCount;
    for (const index of [...this.typeless]) {
      const named = this.awaitInfo(AWAIT_FUNCTION_BASE + index, this.rec.strings().get(this.awaitNames[index]) ?? '');
      if (!named.typed) continue;
      this.awaitInfos[index] = named.info;
      this.typeless.delete(index);
      this.renamed++;
    }
  }

  /** The state machine a frame's function is the MoveNext of (cached per function), or undefined. */
  private stateMachineOf(frame: number): StateMachineName | undefined {
    const fn = this.rec.functionInfo(frame);
    if (fn === undefined) return undefined;
    let known = this.moveNextOf.get(fn.id);
    if (known === undefined) {
      known = stateMachineOfMoveNext(fn.name) ?? null;
      this.moveNextOf.set(fn.id, known);
    }
    return known ?? undefined;
  }

  private moveNextsOf(stateMachine: string): FunctionInfo[] {
    // Functions are only ever added: index those defined since the last look.
    if (this.rec.functionCount !== this.functionsSeen) {
      for (const fn of this.rec.functionsFrom(this.functionsSeen)) {
        const sm = stateMachineOfMoveNext(fn.name);
        if (sm === undefined) continue;
        for (const name of sm.plain === sm.stateMachine ? [sm.plain] : [sm.stateMachine, sm.plain]) {
          const list = this.moveNexts.get(name);
          if (list === undefined) this.moveNexts.set(name, [fn]);
          else list.push(fn);
        }
      }
      this.functionsSeen = this.rec.functionCount;
    }
    return this.moveNexts.get(stateMachine) ?? [];
  }
}
