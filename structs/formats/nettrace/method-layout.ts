// Made-up code addresses for a recording's functions, so that the stacks of a nettrace file can
// name them the way the runtime's stacks do: every function gets one address range, its method
// definition (MethodDCEndVerbose) covers that range, and every frame of that function in a stack
// is the same instruction pointer inside it.
//
// Names: TraceEvent shows a method as `MethodNamespace + "." + MethodName`, so a label is split
// at its last '.' outside <>, [] and () and the two halves joined back give the label exactly
// (`Clrscope.Targets.Scenarios.CpuWork` + `Heavy`; a native `libc.so` + `6!pthread_cond_wait`).
// A label with no '.' at all ([incomplete stack]) has an empty namespace, which TraceEvent shows
// with a leading '.'.

import { frameLabel, type FunctionInfo } from '../../profile/frame-label.js';
import { FunctionKind } from '../../wire/records.js';
import { METHOD_FLAG_JITTED } from './constants.js';

/** Where the made-up code starts: user space, below 2^47, and far from anything real. */
export const CODE_BASE = 0x7c0000000000;
/** Bytes between the starts of consecutive functions. */
export const CODE_STRIDE = 0x100;
/** Each function's size: less than the stride, so ranges never touch. */
export const CODE_SIZE = 0xf0;
/** Where inside its function a frame's instruction pointer points. */
export const IP_OFFSET = 0x10;
/** Module ids are made up too: one per distinct module name. */
export const MODULE_ID_BASE = 0x7d0000000000;
export const MODULE_ID_STRIDE = 0x10000;

export const ELIDED_FRAMES_NAME = '[frames elided]';
/**
 * Module of functions that have none (clrscope's synthetic frames): TraceEvent would otherwise
 * show them under a made-up "ManagedModule".
 */
export const SYNTHETIC_MODULE = '[clrscope]';

export interface MethodEntry {
  functionId: number;
  methodId: number;
  moduleId: number;
  startAddress: number;
  size: number;
  flags: number;
  namespace: string;
  name: string;
}

export interface ModuleEntry {
  moduleId: number;
  path: string;
}

/**
 * Splits a label so that `namespace + "." + name` is the label again. TraceEvent's TraceLog names a
 * method `MethodNamespace + "." + MethodName` even when the namespace is empty, so a label without
 * a top-level dot still splits at a dot inside brackets ("[libcoreclr.so]") rather than show up in
 * PerfView with a leading dot; only a label with no dot at all keeps an empty namespace.
 */
export function splitMethodLabel(label: string): { namespace: string; name: string } {
  let depth = 0;
  let split = -1;
  let anyDot = -1;
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c === 0x3c || c === 0x5b || c === 0x28) depth++; // < [ (
    else if ((c === 0x3e || c === 0x5d || c === 0x29) && depth > 0) depth--; // > ] )
    else if (c === 0x2e) {
      anyDot = i;
      if (depth === 0) split = i;
    }
  }
  if (split < 0 && anyDot > 0) return { namespace: label.slice(0, anyDot), name: label.slice(anyDot + 1) };
  if (split < 0) return { namespace: '', name: label };
  // ".ctor" / ".cctor": keep the method's own dot with the method name.
  if (split > 0 && label.charCodeAt(split - 1) === 0x2e) split--;
  return { namespace: label.slice(0, split), name: label.slice(split + 1) };
}

/** The name TraceEvent's TraceLog gives the method a label was written as. */
export function traceLogMethodName(label: string): string {
  const { namespace, name } = splitMethodLabel(label);
  return `${namespace}.${name}`;
}

export class MethodLayout {
  readonly methods: MethodEntry[] = [];
  readonly modules: ModuleEntry[] = [];
  private readonly indexByFunction = new Map<number, number>();
  private readonly moduleIds = new Map<string, number>();
  private elidedIndex = -1;

  constructor(functions: readonly FunctionInfo[]) {
    for (const fn of functions) this.add(fn.id, fn.kind, frameLabel(fn), fn.module);
  }

  /** The instruction pointer frames of this function get; undefined for an unknown id. */
  address(functionId: number): number | undefined {
    const index = this.indexByFunction.get(functionId);
    return index === undefined ? undefined : CODE_BASE + index * CODE_STRIDE + IP_OFFSET;
  }

  /** The address of a synthetic `[frames elided]` frame, defined the first time it is asked for. */
  elidedAddress(): number {
    if (this.elidedIndex < 0) this.elidedIndex = this.add(-1, FunctionKind.Synthetic, ELIDED_FRAMES_NAME, '');
    return CODE_BASE + this.elidedIndex * CODE_STRIDE + IP_OFFSET;
  }

  private add(functionId: number, kind: number, label: string, module: string): number {
    const index = this.methods.length;
    const { namespace, name } = splitMethodLabel(label);
    this.methods.push({
      functionId,
      methodId: index + 1,
      moduleId: this.moduleId(module === '' ? SYNTHETIC_MODULE : module),
      startAddress: CODE_BASE + index * CODE_STRIDE,
      size: CODE_SIZE,
      flags: kind === FunctionKind.Managed ? METHOD_FLAG_JITTED : 0,
      namespace,
      name,
    });
    if (functionId >= 0) this.indexByFunction.set(functionId, index);
    return index;
  }

  private moduleId(module: string): number {
    let id = this.moduleIds.get(module);
    if (id === undefined) {
      id = MODULE_ID_BASE + this.moduleIds.size * MODULE_ID_STRIDE;
      this.moduleIds.set(module, id);
      this.modules.push({ moduleId: id, path: module });
    }
    return id;
  }
}
