// Folding and grouping as a stack table over the recording's own: each of the recording's
// stacks maps to one folded stack, computed once (lazily, so a live recording's new stacks
// are folded as they appear) and interned, so every view sums samples per folded stack
// exactly as it does per recorded stack. Frames are the recording's functions with their
// names normalized (normalize-name.ts), merged by name, plus the frames folding makes:
// `[runtime]`, `[external code]` and one frame per group.
//
// Rules, for each stack from its root to its leaf:
// - a frame matching a `fold` pattern disappears into its caller (its time becomes the
//   caller's self time); one with no caller stays;
// - a frame matching a `group` pattern becomes the group's frame, and a run of them one frame;
// - with `runtime`, a run of the runtime's and the C library's native frames becomes one
//   `[runtime]` frame;
// - with groupBy, a managed frame becomes its assembly's (`Demo.dll`) or namespace's frame and
//   a native one its library's (`[libfoo.so]`), each run one frame;
// - with `myCode`, frames before the first frame of the program's own code are dropped, the
//   first frame that own code calls outside itself stays (the call into the library or the
//   runtime) and everything it calls folds into it, until own code appears again; a stack
//   with no own code at all becomes `[external code]`.
// The `[incomplete stack]` marker stays the root of the stacks it marks.

import { frameLabel, type FunctionInfo } from '../profile/frame-label.js';
import { INCOMPLETE_STACK_FUNCTION_ID, type ThreadInfo } from '../profile/recording.js';
import { StackTable, NO_EXTRA_ROOT } from '../profile/stack-table.js';
import { FunctionKind } from '../wire/records.js';
import { assemblyName, isOwnCode, isRuntimeNative } from './code-origin.js';
import { globToRegExp, type FoldOptions } from './fold-options.js';
import { methodNameParts } from './name-parts.js';
import { normalizeFunction } from './normalize-name.js';
import type { StackSource } from './stack-source.js';

export const RUNTIME_FRAME = '[runtime]';
export const EXTERNAL_FRAME = '[external code]';

// Per recorded function, what a frame of it becomes (FrameClass), packed in typed arrays.
const FOLD_AWAY = -1;
const F_MERGEABLE = 1;
const F_OWN = 2;
const F_MARKER = 4;

// Function ids below this are classified in dense arrays; the rest (the incomplete marker's
// 0xffffffff, importers' large ids) in a Map.
const DENSE_LIMIT = 1 << 20;

interface CompiledPattern {
  action: 'fold' | 'group';
  re: RegExp;
  /** The group's frame (action 'group'). */
  frame: number;
}

export class FoldedStacks implements StackSource {
  readonly options: FoldOptions;
  private readonly src: StackSource;
  private readonly table = new StackTable(() => undefined);
  /** recorded stack id → folded stack id + 1 (0: not folded yet). */
  private map = new Int32Array(1024);
  private readonly infos: FunctionInfo[] = [];
  private readonly frameByKey = new Map<string, number>();
  private readonly patterns: CompiledPattern[];
  // Per recorded function id (+1 in `cand`, 0 = not classified yet): the frame it becomes and its flags.
  private cand = new Int32Array(1024);
  private flags = new Uint8Array(1024);
  /** The function's own normalized frame (what FOLD_AWAY keeps when nothing calls it). */
  private base = new Int32Array(1024);
  private readonly sparse = new Map<number, { cand: number; flags: number; base: number }>();
  private scratch = new Uint32Array(256);
  private runtimeFrame = -1;
  private externalFrame = -1;

  constructor(src: StackSource, options: FoldOptions) {
    this.src = src;
    this.options = options;
    this.patterns = options.patterns.map((p) => ({
      action: p.action,
      re: globToRegExp(p.glob),
      frame: p.action === 'group' ? this.frame({ id: -1, kind: FunctionKind.Managed, name: p.glob, module: '', file: '', moduleId: 0, token: 0 }) : -1,
    }));
  }

  /** Folded stacks so far; stacks recorded later are folded when first asked for. */
  get stackCount(): number {
    return this.table.count;
  }

  stackFrames(stackId: number): Uint32Array {
    return this.table.frames(stackId);
  }

  functionInfo(frameId: number): FunctionInfo | undefined {
    return this.infos[frameId];
  }

  thread(threadId: number): ThreadInfo | undefined {
    return this.src.thread(threadId);
  }

  /** Folded frames so far: their ids are 0..functionCount-1. */
  get functionCount(): number {
    return this.infos.length;
  }

  frameLabel(frameId: number): string {
    const fn = this.infos[frameId];
    return fn === undefined ? `[frame ${frameId}]` : frameLabel(fn);
  }

  /** The folded stack of recorded stack `stackId`. */
  ofStack(stackId: number): number {
    if (stackId < this.map.length) {
      const known = this.map[stackId];
      if (known !== 0) return known - 1;
    } else {
      let size = this.map.length * 2;
      while (size <= stackId) size *= 2;
      const grown = new Int32Array(size);
      grown.set(this.map);
      this.map = grown;
    }
    const folded = this.fold(this.src.stackFrames(stackId));
    this.map[stackId] = folded + 1;
    return folded;
  }

  /** Folds every recorded stack up to `stackCount` (the recording's count now) and returns the map recorded → folded. */
  mapAll(stackCount: number): Int32Array {
    const out = new Int32Array(stackCount);
    for (let s = 0; s < stackCount; s++) out[s] = this.ofStack(s);
    return out;
  }

  private fold(frames: Uint32Array): number {
    const n = frames.length;
    if (this.scratch.length < n + 1) this.scratch = new Uint32Array(Math.max(n + 1, this.scratch.length * 2));
    const out = this.scratch;
    let len = 0;
    let last = -1;
    let lastMergeable = false;
    let seenOwn = false;
    let external = false;
    let markers = 0;
    const myCode = this.options.myCode;
    // Root first: the scratch holds the folded stack root first and is reversed at the end.
    for (let i = n - 1; i >= 0; i--) {
      const fn = frames[i];
      this.classify(fn);
      let cand: number;
      let flags: number;
      let base: number;
      if (fn < this.cand.length && fn < DENSE_LIMIT) {
        cand = this.cand[fn] - 1;
        flags = this.flags[fn];
        base = this.base[fn];
      } else {
        const c = this.sparse.get(fn)!;
        cand = c.cand;
        flags = c.flags;
        base = c.base;
      }
      if ((flags & F_MARKER) !== 0) {
        out[len++] = cand;
        markers++;
        last = -1;
        continue;
      }
      if (cand === FOLD_AWAY) {
        if (len > markers) continue;
        cand = base;
        flags &= ~F_MERGEABLE;
      }
      if (myCode) {
        if ((flags & F_OWN) !== 0) {
          seenOwn = true;
          external = false;
        } else if (!seenOwn || external) {
          continue;
        } else {
          external = true;
        }
      }
      const mergeable = (flags & F_MERGEABLE) !== 0;
      if (mergeable && lastMergeable && cand === last) continue;
      out[len++] = cand;
      last = cand;
      lastMergeable = mergeable;
    }
    if (myCode && !seenOwn && n > markers) {
      if (this.externalFrame < 0) this.externalFrame = this.frame({ id: -1, kind: FunctionKind.Synthetic, name: EXTERNAL_FRAME, module: '', file: '', moduleId: 0, token: 0 });
      len = markers;
      out[len++] = this.externalFrame;
    }
    out.subarray(0, len).reverse();
    return this.table.intern(out.subarray(0, len), NO_EXTRA_ROOT);
  }

  private classify(fn: number): void {
    if (fn < DENSE_LIMIT) {
      if (fn < this.cand.length && this.cand[fn] !== 0) return;
    } else if (this.sparse.has(fn)) {
      return;
    }
    const { cand, flags, base } = this.classOf(fn);
    if (fn >= DENSE_LIMIT) {
      this.sparse.set(fn, { cand, flags, base });
      return;
    }
    if (fn >= this.cand.length) {
      let size = this.cand.length * 2;
      while (size <= fn) size *= 2;
      const c = new Int32Array(size); c.set(this.cand); this.cand = c;
      const f = new Uint8Array(size); f.set(this.flags); this.flags = f;
      const b = new Int32Array(size); b.set(this.base); this.base = b;
    }
    this.cand[fn] = cand + 1;
    this.flags[fn] = flags;
    this.base[fn] = base;
  }

  private classOf(fn: number): { cand: number; flags: number; base: number } {
    const known = this.src.functionInfo(fn);
    const info: FunctionInfo = known === undefined
      ? { id: fn, kind: FunctionKind.Synthetic, name: `[function ${fn}]`, module: '', file: '', moduleId: 0, token: 0 }
      : normalizeFunction(known);
    const base = this.frame(info);
    if (fn === INCOMPLETE_STACK_FUNCTION_ID) return { cand: base, flags: F_MARKER, base };
    const own = isOwnCode(info) ? F_OWN : 0;
    const label = frameLabel(info);
    for (const p of this.patterns) {
      if (!p.re.test(label)) continue;
      if (p.action === 'fold') return { cand: FOLD_AWAY, flags: own, base };
      return { cand: p.frame, flags: own | F_MERGEABLE, base };
    }
    if (this.options.runtime && isRuntimeNative(info)) {
      if (this.runtimeFrame < 0) this.runtimeFrame = this.frame({ id: -1, kind: FunctionKind.Native, name: RUNTIME_FRAME, module: '', file: '', moduleId: 0, token: 0 });
      return { cand: this.runtimeFrame, flags: F_MERGEABLE, base };
    }
    const group = this.groupFrame(info);
    if (group >= 0) return { cand: group, flags: own | F_MERGEABLE, base };
    return { cand: base, flags: own, base };
  }

  /** The assembly's, namespace's or library's frame under groupBy; -1 when the frame stays itself. */
  private groupFrame(info: FunctionInfo): number {
    const by = this.options.groupBy;
    if (by === 'none') return -1;
    if (info.kind === FunctionKind.Native) {
      if (info.module === '') return -1;
      return this.frame({ id: -1, kind: FunctionKind.Native, name: '', module: info.module, file: '', moduleId: info.moduleId, token: 0 });
    }
    if (info.kind !== FunctionKind.Managed) return -1;
    if (by === 'assembly') {
      const name = info.module !== '' ? `${assemblyName(info.module)}.dll` : '(unknown assembly)';
      return this.frame({ id: -1, kind: FunctionKind.Managed, name, module: info.module, file: '', moduleId: info.moduleId, token: 0 });
    }
    const ns = methodNameParts(info.name).namespace;
    return this.frame({ id: -1, kind: FunctionKind.Managed, name: ns === '' ? '(global namespace)' : ns, module: '', file: '', moduleId: 0, token: 0 });
  }

  /** The folded frame for `info`, by its label and kind: functions that read the same are one frame. */
  private frame(info: FunctionInfo): number {
    const label = frameLabel(info);
    const key = `${info.kind}\u0001${label}`;
    let id = this.frameByKey.get(key);
    if (id === undefined) {
      id = this.infos.length;
      this.infos.push(Object.freeze({ ...info, id }));
      this.frameByKey.set(key, id);
    }
    return id;
  }
}
