// The page's diagnostics hook: a read-only window into the UI, installed by main.tsx only
// when the page's URL has `?test`, as `window.__clrscopeTest`. Its readers: the Chromium
// tests (test/integration/support/workstation-page.ts), which check what is on screen (the
// state the views render, the trees they draw, the flame canvas's own hit-testing) rather
// than re-deriving it, and the latency benchmark (scripts/bench/latency.mjs), which reads
// when each flame draw issued its pixels. It changes nothing; views reach it only through
// flame-probe.ts. The global's and the parameter's names are what those readers use.

import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import type { SourceFile } from '../../../structs/api/contract.js';
import type { ExceptionTable, TypeTable } from '../../../structs/profile/event-tables.js';
import { labelPath } from '../canvas/flame-zoom.js';
import type { AppState } from '../state/app-state.js';
import type { SessionOutput } from '../state/program-output.js';
import { flameIsCurrent } from '../state/view-queries.js';
import type { Workstation } from '../state/workstation.js';
import type { FlatTree, ParallelTree } from '../worker/protocol.js';
import { keptFlameDraws, mountedFlame, recordFlameDraws, type FlameDraw } from './flame-probe.js';

export interface TestNode {
  index: number;
  label: string;
  kind: number;
  parent: number;
  depth: number;
  total: number;
  self: number;
}

export interface TestParallelNode extends TestNode {
  threads: number[];
}

export interface TestHit extends TestNode {
  /** Labels from below the root down to this node. */
  path: string[];
}

export interface TestFunctionRow {
  name: string;
  kind: number;
  self: number;
  total: number;
  selfSamples: number;
  totalSamples: number;
}

export interface TestDiffRow {
  name: string;
  beforeSelf: number;
  afterSelf: number;
  beforeTotal: number;
  afterTotal: number;
}

export interface DiagnosticsHook {
  state(): Pick<AppState, 'tab' | 'selectedSessionId' | 'sessions' | 'summary' | 'streamBytes' | 'error' | 'flameOptions' | 'parallelMode' | 'exports' | 'opening'
    | 'fold' | 'selectedFunction' | 'diffOptions' | 'timelineStack' | 'flameZoom' | 'heap'> & {
    /** The flame tree on screen answers the current options (false while a changed query is out, or before any tree). */
    flameCurrent: boolean;
  };
  /** The functions table as the worker sent it (its own order), with its totals. */
  functions(): { rows: TestFunctionRow[]; totalValue: number; sampleCount: number } | null;
  /** The type and exceptions tables as the worker sent them (its own order). */
  eventTables(): { types: TypeTable; exceptions: ExceptionTable } | null;
  /** The sandwich of the selected function: both trees' nodes. */
  sandwich(): { self: number; total: number; callers: TestNode[]; callees: TestNode[] } | null;
  diff(): { rows: TestDiffRow[]; beforeValue: number; afterValue: number; nodes: (TestNode & { before: number; after: number; delta: number })[] } | null;
  timeline(): { threads: { id: number; name: string; cpuNs: number; wallNs: number }[]; buckets: number; fromMs: number; toMs: number; cpuBusy: number[] } | null;
  /** The Source view's figures (the selected function's time per line) and what it knows of the file. */
  source(): { lines: FunctionLines | null; file: { path: string; lineCount: number | null; message: string | null; spans: SourceFile['spans'] } | null };
  flameNodes(): TestNode[];
  parallelNodes(): TestParallelNode[];
  /** The canvas's size in CSS pixels, or null when the flame view is not shown. */
  flameCanvas(): { width: number; height: number } | null;
  /** Which rows of the (possibly taller) canvas its scrolling box shows: canvas y from `top`, `height` pixels. */
  flameVisible(): { top: number; height: number } | null;
  /** The renderer's hit test at CSS pixel (x, y) of the canvas. */
  flameHit(x: number, y: number): TestHit | null;
  /** The same, just the node index (-1 for none): cheap enough to scan the whole canvas. */
  flameHitIndex(x: number, y: number): number;
  /** Labels from below the root to `node` in the tree the renderer draws now (indices change with every live update). */
  flamePath(node: number): string[];
  /** The path of the frame the flame renderer shows zoomed (empty: the whole tree), where state().flameZoom is the path asked for. */
  flameZoomed(): string[] | null;
  counterPoints(): number;
  /** The selected session's program output as the Output view lists it. */
  output(): SessionOutput;
  /** The last draws of the flame canvas (at most 256), oldest first. */
  flameDraws(): FlameDraw[];
}

function node(tree: FlatTree, i: number): TestNode {
  return {
    index: i, label: tree.labels[tree.label[i]] ?? '', kind: tree.labelKind[tree.label[i]] ?? 0,
    parent: tree.parent[i], depth: tree.depth[i], total: tree.total[i], self: tree.self[i],
  };
}

function nodes(tree: FlatTree | null): TestNode[] {
  if (tree === null) return [];
  return Array.from({ length: tree.nodeCount }, (_, i) => node(tree, i));
}

/** Puts the hook on `window.__clrscopeTest` and starts keeping flame draws. */
export function installDiagnosticsHook(ws: Workstation): void {
  const hook: DiagnosticsHook = {
    state: () => {
      const s = ws.state;
      return {
        tab: s.tab, selectedSessionId: s.selectedSessionId, sessions: s.sessions, summary: s.summary, streamBytes: s.streamBytes,
        error: s.error, flameOptions: s.flameOptions, parallelMode: s.parallelMode, exports: s.exports, opening: s.opening,
        fold: s.fold, selectedFunction: s.selectedFunction, diffOptions: s.diffOptions, timelineStack: s.timelineStack, flameZoom: s.flameZoom, heap: s.heap,
        flameCurrent: flameIsCurrent(s),
      };
    },
    source: () => {
      const f = ws.state.sourceFile;
      return {
        lines: ws.state.functionLines,
        file: f === null ? null : { path: f.path, lineCount: f.text === null ? null : f.text.split(/\r?\n/).length, message: f.message, spans: f.spans },
      };
    },
    functions: () => {
      const t = ws.state.functions;
      if (t === null) return null;
      const rows = t.name.map((name, i) => ({ name, kind: t.kind[i], self: t.self[i], total: t.total[i], selfSamples: t.selfSamples[i], totalSamples: t.totalSamples[i] }));
      return { rows, totalValue: t.totalValue, sampleCount: t.sampleCount };
    },
    eventTables: () => ws.state.eventTables,
    sandwich: () => {
      const s = ws.state.sandwich;
      return s === null ? null : { self: s.self, total: s.total, callers: nodes(s.callers), callees: nodes(s.callees) };
    },
    diff: () => {
      const d = ws.state.diff;
      if (d === null) return null;
      const f = d.functions;
      const rows = f.name.map((name, i) => ({ name, beforeSelf: f.beforeSelf[i], afterSelf: f.afterSelf[i], beforeTotal: f.beforeTotal[i], afterTotal: f.afterTotal[i] }));
      const t = d.tree;
      return { rows, beforeValue: f.beforeValue, afterValue: f.afterValue, nodes: nodes(t).map((n) => ({ ...n, before: t.before[n.index], after: t.after[n.index], delta: t.delta[n.index] })) };
    },
    timeline: () => {
      const t = ws.state.timeline;
      if (t === null) return null;
      // Per lane, how many buckets show the thread mostly on a CPU.
      const cpuBusy = t.threads.map((_, lane) => {
        let n = 0;
        for (let k = 0; k < t.buckets; k++) if (t.cpu[lane * t.buckets + k] >= 0.5) n++;
        return n;
      });
      return { threads: t.threads.map((x) => ({ id: x.id, name: x.name, cpuNs: x.cpuNs, wallNs: x.wallNs })), buckets: t.buckets, fromMs: t.fromMs, toMs: t.toMs, cpuBusy };
    },
    flameNodes: () => nodes(ws.state.flame),
    parallelNodes: () => {
      const tree: ParallelTree | null = ws.state.parallel;
      if (tree === null) return [];
      return nodes(tree).map((n) => ({ ...n, threads: [...(tree.threads[n.index] ?? [])] }));
    },
    flameCanvas: () => {
      const f = mountedFlame();
      return f === null ? null : { width: f.canvas.clientWidth, height: f.canvas.clientHeight };
    },
    flameVisible: () => {
      const box = mountedFlame()?.canvas.parentElement ?? null;
      return box === null ? null : { top: box.scrollTop, height: box.clientHeight };
    },
    flameHit: (x, y) => {
      const f = mountedFlame();
      const tree = f?.renderer.tree ?? null;
      if (f === null || tree === null) return null;
      const i = f.renderer.hit(x, y);
      if (i < 0 || i >= tree.nodeCount) return null;
      return { ...node(tree, i), path: labelPath(tree, i) };
    },
    flameHitIndex: (x, y) => mountedFlame()?.renderer.hit(x, y) ?? -1,
    flamePath: (node) => {
      const tree = mountedFlame()?.renderer.tree ?? null;
      return tree === null || node < 0 || node >= tree.nodeCount ? [] : labelPath(tree, node);
    },
    flameZoomed: () => {
      const r = mountedFlame()?.renderer;
      const tree = r?.tree ?? null;
      return r === undefined || tree === null ? null : labelPath(tree, r.zoomedNode);
    },
    counterPoints: () => ws.counters.points(ws.state.selectedSessionId).length,
    output: () => ws.output.get(ws.state.selectedSessionId),
    flameDraws: () => keptFlameDraws(),
  };
  recordFlameDraws();
  (window as unknown as { __clrscopeTest: DiagnosticsHook }).__clrscopeTest = hook;
}
