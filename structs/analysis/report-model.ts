// `clrscope report --format json`: the analysis as plain, stable JSON. The shape is versioned
// by `clrscopeReport` and documented in README.md; fields are only ever added. Values are in
// the sample type's unit (nanoseconds for cpu and wall, a count for samples); percentages are
// of the query's total, 0..100.

import { GC_FRAME_NAME } from '../profile/frame-label.js';
import { FunctionKind, type OwnCost } from '../wire/records.js';
import type { FlatTree } from './flat-tree.js';
import type { FoldOptions } from './fold-options.js';
import type { FunctionsTable } from './functions-table.js';
import type { DiffFunctions, DiffNormalize, DiffTree } from './diff.js';
import { sharePct } from './diff.js';
import type { FunctionLines } from './function-lines.js';

export const REPORT_VERSION = 1;

export type FrameKindName = 'managed' | 'native' | 'synthetic';

/** Self and total of a row (a function, a source line): value, share of the whole, samples. */
export interface ReportFigures {
  self: number;
  selfPercent: number;
  total: number;
  totalPercent: number;
  selfSamples: number;
  totalSamples: number;
}

export interface ReportFunction extends ReportFigures {
  name: string;
  module: string;
  kind: FrameKindName;
}

export interface ReportNode {
  name: string;
  self: number;
  total: number;
  /** Children by name; nodes below the report's minPercent are left out (their time stays in their parent's total). */
  children: ReportNode[];
}

export interface ReportSandwich {
  name: string;
  self: number;
  total: number;
  /** Rooted at the function: its callers (in `callers`) or callees (in `callees`) below it. */
  tree: ReportNode;
}

export interface ReportDiffSide {
  self: number;
  total: number;
}

export interface ReportDiffFunction {
  name: string;
  kind: FrameKindName;
  before: ReportDiffSide;
  after: ReportDiffSide;
  /** After minus before: percentage points of each side's total with normalize 'share', the unit's difference with 'absolute'. */
  delta: ReportDiffSide;
}

export interface ReportDiffNode {
  name: string;
  before: number;
  after: number;
  delta: number;
  children: ReportDiffNode[];
}

export interface ReportDiff {
  base: string;
  baseFormat: string;
  baseWindow: ReportWindow;
  normalize: DiffNormalize;
  beforeTotal: number;
  afterTotal: number;
  beforeSamples: number;
  afterSamples: number;
  functions: ReportDiffFunction[];
  /** With --tree: the differential tree (totals per side, delta as for functions). */
  tree?: ReportDiffNode;
}

export interface ReportSourceLine extends ReportFigures {
  file: string;
  line: number;
}

/** `--source NAME`: the function's self and total per source line (the source panel's figures). */
export interface ReportSource {
  name: string;
  self: number;
  total: number;
  /** The file with most of its time; null when no line of it is known. */
  file: string | null;
  /** By file, then line. */
  lines: ReportSourceLine[];
  /** Time of its frames at no known line. */
  unknownSelf: number;
  unknownTotal: number;
}

export interface ReportWindow {
  /** Milliseconds after the recording's start; null = open. */
  fromMs: number | null;
  toMs: number | null;
}

export interface Report {
  clrscopeReport: typeof REPORT_VERSION;
  file: string;
  format: string;
  sampleType: string;
  unit: 'nanoseconds' | 'samples';
  window: ReportWindow;
  fold: FoldOptions;
  minPercent: number;
  totalValue: number;
  sampleCount: number;
  functions?: ReportFunction[];
  callers?: ReportSandwich;
  callees?: ReportSandwich;
  tree?: ReportNode;
  diff?: ReportDiff;
  /** `--lines`: frames are methods at a source line, `Name [File.cs:42]`, where the line is known. */
  lines?: boolean;
  /** `--source NAME`: that function's time per source line. */
  source?: ReportSource;
  /** `--lines`: why some modules' lines are unknown (no PDB found, another build), one sentence each. */
  lineNotes?: string[];
  /** What garbage collection cost: the samples under a `[GC]` frame; absent when there are none. */
  gc?: ReportGc;
  /**
   * true when the values are CPU time the recording could only estimate (a .nettrace, an
   * EventPipe session, another tool's profile): counted from where samples found threads, not
   * measured by a CPU clock. Absent when the values are measured or are not CPU time.
   */
  cpuEstimated?: true;
  /** clrscope's own measured cost in the recorded process(es), the whole recording's; absent when the stream had none. */
  ownCost?: ReportOwnCost;
}

/** The STATS record's cost (PROTOCOL.md, STATS), ns, with its total and its share of the program's own CPU. */
export interface ReportOwnCost extends OwnCost {
  totalNs: number;
  programCpuNs: number;
  percentOfProgram: number | null;
}

/** The `[GC]` frame's total (collector threads, and threads while they performed a collection). */
export interface ReportGc {
  total: number;
  totalPercent: number;
  totalSamples: number;
}

export function kindName(kind: number): FrameKindName {
  return kind === FunctionKind.Managed ? 'managed' : kind === FunctionKind.Native ? 'native' : 'synthetic';
}

/** The `[GC]` frame's row of the table, or undefined when no sample has one. */
export function reportGc(t: FunctionsTable): ReportGc | undefined {
  for (let i = 0; i < t.rowCount; i++) {
    if (t.name[i] !== GC_FRAME_NAME || t.kind[i] !== FunctionKind.Synthetic || t.totalSamples[i] === 0) continue;
    return { total: t.total[i], totalPercent: sharePct(t.total[i], t.totalValue), totalSamples: t.totalSamples[i] };
  }
  return undefined;
}

/** The first `top` rows (all when top is 0). */
export function reportFunctions(t: FunctionsTable, top: number): ReportFunction[] {
  const n = top > 0 ? Math.min(top, t.rowCount) : t.rowCount;
  const out: ReportFunction[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      name: t.name[i], module: t.module[i], kind: kindName(t.kind[i]),
      self: t.self[i], selfPercent: sharePct(t.self[i], t.totalValue),
      total: t.total[i], totalPercent: sharePct(t.total[i], t.totalValue),
      selfSamples: t.selfSamples[i], totalSamples: t.totalSamples[i],
    });
  }
  return out;
}

/** Children lists of a FlatTree (preorder, so each list comes out in the tree's name order). */
function childLists(tree: FlatTree): number[][] {
  const children: number[][] = Array.from({ length: tree.nodeCount }, () => []);
  for (let i = 1; i < tree.nodeCount; i++) children[tree.parent[i]].push(i);
  return children;
}

/** The tree under `start` as nested nodes, leaving out nodes whose total is below `minValue`. */
export function reportTree(tree: FlatTree, start: number, minValue: number): ReportNode {
  const children = childLists(tree);
  const build = (i: number): ReportNode => ({
    name: tree.labels[tree.label[i]],
    self: tree.self[i],
    total: tree.total[i],
    children: children[i].filter((c) => tree.total[c] >= minValue && tree.total[c] > 0).map(build),
  });
  return build(start);
}

export function reportDiffTree(tree: DiffTree, minPercent: number): ReportDiffNode {
  const children = childLists(tree);
  const pct = (i: number): number => Math.max(sharePct(tree.before[i], tree.beforeTotal), sharePct(tree.after[i], tree.afterTotal));
  const build = (i: number): ReportDiffNode => ({
    name: tree.labels[tree.label[i]],
    before: tree.before[i],
    after: tree.after[i],
    delta: tree.delta[i],
    children: children[i].filter((c) => pct(c) >= minPercent && (tree.before[c] > 0 || tree.after[c] > 0)).map(build),
  });
  return build(0);
}

export function reportDiffFunctions(d: DiffFunctions, normalize: DiffNormalize, top: number): ReportDiffFunction[] {
  const n = top > 0 ? Math.min(top, d.rowCount) : d.rowCount;
  const measure = (v: number, total: number): number => (normalize === 'share' ? sharePct(v, total) : v);
  const out: ReportDiffFunction[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      name: d.name[i],
      kind: kindName(d.kind[i]),
      before: { self: d.beforeSelf[i], total: d.beforeTotal[i] },
      after: { self: d.afterSelf[i], total: d.afterTotal[i] },
      delta: {
        self: measure(d.afterSelf[i], d.afterValue) - measure(d.beforeSelf[i], d.beforeValue),
        total: measure(d.afterTotal[i], d.afterValue) - measure(d.beforeTotal[i], d.beforeValue),
      },
    });
  }
  return out;
}

/** `--source`: a function's figures per line, percentages of the query's total. */
export function reportSource(f: FunctionLines, totalValue: number): ReportSource {
  return {
    name: f.name, self: f.self, total: f.total, file: f.file, unknownSelf: f.unknownSelf, unknownTotal: f.unknownTotal,
    lines: f.lines.map((l) => ({
      file: l.file, line: l.line, self: l.self, selfPercent: sharePct(l.self, totalValue), total: l.total, totalPercent: sharePct(l.total, totalValue),
      selfSamples: l.selfSamples, totalSamples: l.totalSamples,
    })),
  };
}
