// Source lines of a recording's frames: a frame that knows its IL offset (wire v2, issue 13)
// is looked up in its method's sequence points, through a lookup the caller supplies (the main
// process reads PDBs; structs reads no files). Each frame is looked up once. Frames without an
// IL offset, and recordings without frames (v1, imported formats), have no line.

import type { FunctionInfo } from './frame-label.js';
import type { ModuleInfo, Recording } from './recording.js';
import { FunctionKind, OffsetKind } from '../wire/records.js';

export interface SourceLine {
  /** The document's path as the compiler wrote it into the PDB. */
  readonly file: string;
  readonly line: number;
}

/** The line of `ilOffset` in the method `token` of `module`, or null when it is unknown. */
export type LineLookup = (module: ModuleInfo, token: number, ilOffset: number) => SourceLine | null;

/** The last part of a path, `/` or `\` separated. */
export function fileBaseName(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut < 0 ? path : path.slice(cut + 1);
}

/**
 * `Name [Program.cs:42]`: a place in a method, as the per-line views and `report --lines` name
 * it. In brackets rather than parentheses, which name normalization takes for a parameter list
 * and drops.
 */
export function lineLabel(name: string, at: SourceLine): string {
  return `${name} [${fileBaseName(at.file)}:${at.line}]`;
}

export class FrameLines {
  private readonly rec: Recording;
  private readonly lookup: LineLookup;
  private readonly cache = new Map<number, SourceLine | null>();
  private readonly fileOfFunction = new Map<number, string>();

  constructor(rec: Recording, lookup: LineLookup) {
    this.rec = rec;
    this.lookup = lookup;
  }

  /** The line of a wire frame id (v2), or null. */
  of(frameId: number): SourceLine | null {
    const known = this.cache.get(frameId);
    if (known !== undefined) return known;
    const line = this.find(frameId);
    if (line === null) this.cache.set(frameId, null);
    else this.set(frameId, line);
    return line;
  }

  /** Records a frame's line found elsewhere. */
  set(frameId: number, line: SourceLine): void {
    this.cache.set(frameId, line);
    const fn = this.rec.frameInfo(frameId)?.functionId;
    if (fn !== undefined && !this.fileOfFunction.has(fn)) this.fileOfFunction.set(fn, line.file);
  }

  /** The source file of a function, once one of its frames was looked up; else what the recording says. */
  fileOf(fn: FunctionInfo): string {
    return this.fileOfFunction.get(fn.id) ?? fn.file;
  }

  /** Looks up every frame the recording's stacks use (so fileOf knows every function's file). */
  resolveAll(): void {
    if (!this.rec.hasFrames) return;
    for (const f of this.rec.frames()) this.of(f.id);
  }

  private find(frameId: number): SourceLine | null {
    const frame = this.rec.frameInfo(frameId);
    if (frame === undefined || frame.offsetKind !== OffsetKind.IL) return null;
    const fn = this.rec.functionInfo(frame.functionId);
    if (fn === undefined || fn.kind !== FunctionKind.Managed || fn.token === 0) return null;
    const module = this.rec.moduleInfo(fn.moduleId);
    if (module === undefined) return null;
    return this.lookup(module, fn.token, frame.offset);
  }
}

/** Lines already looked up elsewhere (the main process answers the renderer's worker with them). */
export function knownLines(rec: Recording, frameIds: readonly number[], lines: readonly SourceLine[]): FrameLines {
  const byFrame = new Map<number, SourceLine>();
  frameIds.forEach((id, i) => byFrame.set(id, lines[i]));
  const out = new FrameLines(rec, () => null);
  for (const [id, at] of byFrame) out.set(id, at);
  return out;
}
