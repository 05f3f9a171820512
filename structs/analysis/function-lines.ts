// One function's time per source line, for the source panel ("Goto source" in PerfView) and
// `clrscope report --source`: the samples of a query whose stacks pass through the function,
// put on the line each of its frames is at. A line's self is the time spent in the function's
// own code on that line (its frame is the leaf); its total counts each sample once per line
// even when recursion puts the line on the stack twice. The stacks are the recorded ones
// (folding does not move time between lines of one function).

import { frameLabel } from '../profile/frame-label.js';
import type { FrameLines } from '../profile/frame-lines.js';
import type { Recording } from '../profile/recording.js';
import { weighStacks, type SampleQuery } from './stack-weights.js';

export interface LineFigure {
  file: string;
  line: number;
  self: number;
  total: number;
  selfSamples: number;
  totalSamples: number;
}

/** A method the function's frames ran, as the main process finds it in its module's PDB. */
export interface MethodRef {
  moduleId: number;
  token: number;
}

export interface FunctionLines {
  name: string;
  /** The query's whole value (the % of the recording is of this). */
  totalValue: number;
  self: number;
  total: number;
  /** Sorted by file, then line. */
  lines: LineFigure[];
  /** The file with the most total value: the one to show; null when no frame has a line. */
  file: string | null;
  /** Time in frames of the function whose line is unknown (no IL offset, no PDB). */
  unknownSelf: number;
  unknownTotal: number;
  /** The methods behind the name (one per generic instantiation's definition, module). */
  methods: MethodRef[];
}

export function functionLines(rec: Recording, lines: FrameLines, name: string, query: SampleQuery): FunctionLines {
  const w = weighStacks(rec, query);
  const out: FunctionLines = { name, totalValue: w.totalValue, self: 0, total: 0, lines: [], file: null, unknownSelf: 0, unknownTotal: 0, methods: [] };
  const isIt = new Map<number, boolean>();
  const methods = new Map<string, MethodRef>();
  const matches = (fn: number): boolean => {
    let m = isIt.get(fn);
    if (m === undefined) {
      const info = rec.functionInfo(fn);
      m = info !== undefined && frameLabel(info) === name;
      isIt.set(fn, m);
      if (m && info !== undefined && info.token !== 0) methods.set(`${info.moduleId}:${info.token}`, { moduleId: info.moduleId, token: info.token });
    }
    return m;
  };
  const byLine = new Map<string, LineFigure>();
  const seen = new Set<string>();
  const UNKNOWN = '\u0000';
  for (let s = 0; s < rec.stackCount; s++) {
    const value = w.value[s];
    const count = w.count[s];
    if (count === 0) continue;
    const fns = rec.stackFrames(s);
    const wire = rec.stackFrameIds(s);
    seen.clear();
    for (let i = 0; i < fns.length; i++) {
      if (!matches(fns[i])) continue;
      const at = rec.hasFrames ? lines.of(wire[i]) : null;
      const key = at === null ? UNKNOWN : `${at.file}\u0000${at.line}`;
      const leaf = i === 0;
      if (seen.size === 0) {
        out.total += value;
      }
      if (leaf) out.self += value;
      if (at === null) {
        if (leaf) out.unknownSelf += value;
        if (!seen.has(key)) out.unknownTotal += value;
        seen.add(key);
        continue;
      }
      let fig = byLine.get(key);
      if (fig === undefined) {
        fig = { file: at.file, line: at.line, self: 0, total: 0, selfSamples: 0, totalSamples: 0 };
        byLine.set(key, fig);
      }
      if (leaf) {
        fig.self += value;
        fig.selfSamples += count;
      }
      if (!seen.has(key)) {
        fig.total += value;
        fig.totalSamples += count;
        seen.add(key);
      }
    }
  }
  out.lines = [...byLine.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const perFile = new Map<string, number>();
  for (const l of out.lines) perFile.set(l.file, (perFile.get(l.file) ?? 0) + l.total);
  let best = -1;
  for (const [file, t] of perFile) {
    if (t > best) {
      best = t;
      out.file = file;
    }
  }
  out.methods = [...methods.values()];
  return out;
}

/** The line of `lines` to scroll to: the most self (then total) value; null when none has any. */
export function hottestLine(lines: readonly LineFigure[], file: string | null): LineFigure | null {
  let best: LineFigure | null = null;
  for (const l of lines) {
    if (file !== null && l.file !== file) continue;
    if (best === null || l.self > best.self || (l.self === best.self && l.total > best.total)) best = l;
  }
  return best === null || best.total === 0 ? null : best;
}

/** How many heat steps the panel colours lines with (CSS classes heat-1..heat-HEAT_LEVELS). */
export const HEAT_LEVELS = 8;

/**
 * A line's heat step, 0 (none) to HEAT_LEVELS, from its value against the hottest line's:
 * any value above zero is at least step 1, so a line with a single sample still shows.
 */
export function heatLevel(value: number, max: number): number {
  if (!(value > 0) || !(max > 0)) return 0;
  return Math.max(1, Math.min(HEAT_LEVELS, Math.ceil((value / max) * HEAT_LEVELS)));
}

/**
 * A method's lines as its sequence points span them, widened over the braces around them: an
 * optimized build has no sequence point on a method's `{` and `}`, yet they are the method's.
 * `text` holds the file's lines (index 0 is line 1).
 */
export function widenToBraces(text: readonly string[], span: { firstLine: number; lastLine: number }): { firstLine: number; lastLine: number } {
  const open = (line: number): boolean => /^\s*\{\s*$/.test(text[line - 1] ?? '');
  const close = (line: number): boolean => /^\s*\}\s*$/.test(text[line - 1] ?? '');
  let { firstLine, lastLine } = span;
  // A span that starts on its `{` or ends on its `}` (a debug build's) has them already.
  if (!open(firstLine) && open(firstLine - 1)) firstLine--;
  if (!close(lastLine) && close(lastLine + 1)) lastLine++;
  return { firstLine, lastLine };
}
