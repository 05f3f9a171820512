// Maps instruction pointers to functions using the method definitions of a trace: the runtime's
// MethodLoadVerbose events and the rundown's MethodDCStart/EndVerbose events give each method's
// code range, namespace, name and module. Sample profiler stacks on Linux hold managed code
// only, so an address no method covers (a stub, native code) becomes one `[unknown]` frame.
//
// Files clrscope wrote come back with the kinds they had: a native frame was written as the
// method `module!symbol` (or `[module]`) in its library's module, a synthetic one in the
// `[clrscope]` module (see method-layout.ts).

import type { FunctionInfo } from '../../profile/frame-label.js';
import { FunctionKind } from '../../wire/records.js';
import { SYNTHETIC_MODULE } from './method-layout.js';
import type { MethodDefinition } from './runtime-event-readers.js';

export const UNKNOWN_FRAME_NAME = '[unknown]';

export type FunctionShape = Omit<FunctionInfo, 'id' | 'moduleId' | 'token'>;

function baseName(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut >= 0 ? path.slice(cut + 1) : path;
}

/** What a method definition stands for in clrscope's model. */
export function functionShape(label: string, modulePath: string): FunctionShape {
  const module = baseName(modulePath);
  if (module === SYNTHETIC_MODULE) return { kind: FunctionKind.Synthetic, name: label, module: '', file: '' };
  if (module !== '' && label === `[${module}]`) return { kind: FunctionKind.Native, name: '', module, file: '' };
  if (module !== '' && label.startsWith(`${module}!`)) return { kind: FunctionKind.Native, name: label.slice(module.length + 1), module, file: '' };
  return { kind: FunctionKind.Managed, name: label, module, file: '' };
}

export class Symbolizer {
  private readonly defs: MethodDefinition[] = [];
  private readonly modules = new Map<number, string>();
  private starts = new Float64Array(0);
  private ends = new Float64Array(0);
  private order: number[] = [];
  private sealed = false;

  addMethod(def: MethodDefinition): void {
    if (def.size > 0) this.defs.push(def);
    this.sealed = false;
  }

  addModule(moduleId: number, ilPath: string): void {
    this.modules.set(moduleId, ilPath);
  }

  get methodCount(): number {
    return this.defs.length;
  }

  /** The method whose code holds `address`, as a function shape; undefined when none does. */
  lookup(address: number): FunctionShape | undefined {
    if (!this.sealed) this.seal();
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= address) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    // Ranges rarely overlap (code replaced after an unload); look back a little for a cover.
    for (let i = found; i >= 0 && i > found - 8; i--) {
      if (address < this.ends[i]) return this.shapeOf(this.defs[this.order[i]]);
    }
    return undefined;
  }

  private shapeOf(def: MethodDefinition): FunctionShape {
    const label = def.namespace === '' ? def.name : `${def.namespace}.${def.name}`;
    return functionShape(label, this.modules.get(def.moduleId) ?? '');
  }

  private seal(): void {
    // Sorted by start, equal starts in file order: the search finds the last, the latest definition.
    this.order = this.defs.map((_, i) => i).sort((a, b) => this.defs[a].startAddress - this.defs[b].startAddress || a - b);
    this.starts = Float64Array.from(this.order, (i) => this.defs[i].startAddress);
    this.ends = Float64Array.from(this.order, (i) => this.defs[i].startAddress + this.defs[i].size);
    this.sealed = true;
  }
}
