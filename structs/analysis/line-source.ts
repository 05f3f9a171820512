// A recording seen per source line: each frame becomes its method at its line,
// `Ns.Type.Method [Program.cs:42]`, so every analysis (functions table, trees, callers,
// folding) attributes time to lines as it does to functions (`report --lines`, pprof's
// `-lines`). Frames without a known line stay their function. The recording is not copied:
// stacks are mapped when first asked for.

import type { FunctionInfo } from '../profile/frame-label.js';
import { lineLabel, type FrameLines, type SourceLine } from '../profile/frame-lines.js';
import { INCOMPLETE_STACK_FUNCTION_ID, type Recording, type SampleColumnViews, type ThreadInfo } from '../profile/recording.js';
import type { SuspensionRecord } from '../wire/records.js';
import type { SampleSource } from './stack-source.js';

export class LineSource implements SampleSource {
  private readonly rec: Recording;
  private readonly lines: FrameLines;
  private readonly infos: FunctionInfo[] = [];
  // The recording's function id (no line) or `function:file:line` -> id here.
  private readonly byFunction = new Map<number, number>();
  private readonly byLine = new Map<string, number>();
  private readonly stackCache: (Uint32Array | undefined)[] = [];

  constructor(rec: Recording, lines: FrameLines) {
    this.rec = rec;
    this.lines = lines;
  }

  get meta(): SampleSource['meta'] {
    return this.rec.meta;
  }

  get sampleCount(): number {
    return this.rec.sampleCount;
  }

  get stackCount(): number {
    return this.rec.stackCount;
  }

  sampleColumns(): SampleColumnViews {
    return this.rec.sampleColumns();
  }

  threads(): ThreadInfo[] {
    return this.rec.threads();
  }

  thread(id: number): ThreadInfo | undefined {
    return this.rec.thread(id);
  }

  suspensions(): readonly SuspensionRecord[] {
    return this.rec.suspensions();
  }

  functionInfo(id: number): FunctionInfo | undefined {
    if (id === INCOMPLETE_STACK_FUNCTION_ID) return this.rec.functionInfo(id);
    return this.infos[id];
  }

  stackFrames(stackId: number): Uint32Array {
    let out = this.stackCache[stackId];
    if (out === undefined) {
      const wire = this.rec.stackFrameIds(stackId);
      const functions = this.rec.stackFrames(stackId);
      out = new Uint32Array(wire.length);
      for (let i = 0; i < wire.length; i++) {
        const fn = functions[i];
        if (fn === INCOMPLETE_STACK_FUNCTION_ID) {
          out[i] = fn;
          continue;
        }
        const at = this.rec.hasFrames ? this.lines.of(wire[i]) : null;
        out[i] = at === null ? this.plain(fn) : this.atLine(fn, at);
      }
      this.stackCache[stackId] = out;
    }
    return out;
  }

  private plain(fn: number): number {
    let id = this.byFunction.get(fn);
    if (id === undefined) {
      id = this.add(this.rec.functionInfo(fn), null);
      this.byFunction.set(fn, id);
    }
    return id;
  }

  private atLine(fn: number, at: SourceLine): number {
    const key = `${fn}:${at.file}:${at.line}`;
    let id = this.byLine.get(key);
    if (id === undefined) {
      id = this.add(this.rec.functionInfo(fn), at);
      this.byLine.set(key, id);
    }
    return id;
  }

  private add(fn: FunctionInfo | undefined, at: SourceLine | null): number {
    const id = this.infos.length;
    const base: FunctionInfo = fn ?? { id, kind: 2, name: '[unknown]', module: '', file: '', moduleId: 0, token: 0 };
    this.infos.push(Object.freeze({
      ...base,
      id,
      name: at === null ? base.name : lineLabel(base.name, at),
      file: at === null ? base.file : at.file,
    }));
    return id;
  }
}
