// A read-only window into the UI for the end-to-end test, installed only when the page's URL
// has `?test`: the state the views render, the trees they draw and the flame canvas's own
// hit-testing, so the test checks what is on screen rather than re-deriving it.

import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import type { SourceFile } from '../../../structs/api/contract.js';
import type { ExceptionTable, TypeTable } from '../../../structs/profile/event-tables.js';
import type { FlameRenderer } from '../canvas/flame-renderer.js';
import { labelPath } from '../canvas/flame-zoom.js';
import type { AppState } from '../state/app-state.js';
import type { SessionOutput } from '../state/program-output.js';
import { flameIsCurrent } from '../state/view-queries.js';
import type { Workstation } from '../state/workstation.js';
import type { FlatTree, ParallelTree } from '../worker/protocol.js';

interface FlameHandle {
  renderer: FlameRenderer;
  canvas: HTMLCanvasElement;
}

let flame: FlameHandle | null = null;

/** One draw of the flame canvas: how old the freshest data on screen was (scripts/bench/latency.mjs). */
export interface FlameDraw {
  /** Numbers every draw since the hook was installed, so a poller can tell which it has seen. */
  seq: number;
  /** Unix-epoch ms when draw() had issued the frame's pixels. */
  drawnAtUnixMs: number;
  /** The drawn tree's newestSampleUnixMs; null for an empty tree or none. */
  newestSampleUnixMs: number | null;
}

// A bounded ring: the hook may stay installed through hours of live redraws.
const FLAME_DRAWS_KEPT = 256;
const flameDraws: FlameDraw[] = [];
let flameDrawSeq = 0;
let recordingDraws = false;

/** The flame view calls this after every draw; without the hook it returns at once. */
export function noteFlameDraw(tree: FlatTree | null): void {
  if (!recordingDraws) return;
  flameDraws[flameDrawSeq % FLAME_DRAWS_KEPT] = {
    seq: flameDrawSeq, drawnAtUnixMs: performance.timeOrigin + performance.now(), newestSampleUnixMs: tree?.newestSampleUnixMs ?? null,
  };
  flameDrawSeq++;
}

/** The flame view registers its renderer while it is mounted. */
export function registerFlame(renderer: FlameRenderer, canvas: HTMLCanvasElement): () => void {
  const handle = { renderer, canvas };
  flame = handle;
  return () => { if (flame === handle) flame = null; };
}

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

export interface ClrscopeTestHook {
  state(): Pick<AppState, 'tab' | 'selectedSessionId' | 'sessions' | 'summary' | 'streamBytes' | 'error' | 'flameOptions' | 'parallelMode' | 'exports' | 'opening'
    | 'fold' | 'selectedFunction' | 'diffOptions' | 'timelineStack'> & {
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

export function installTestHook(ws: Workstation): void {
  const hook: ClrscopeTestHook = {
    state: () => {
      const s = ws.state;
      return {
        tab: s.tab, selectedSessionId: s.selectedSessionId, sessions: s.sessions, summary: s.summary, streamBytes: s.streamBytes,
        error: s.error, flameOptions: s.flameOptions, parallelMode: s.parallelMode, exports: s.exports, opening: s.opening,
        fold: s.fold, selectedFunction: s.selectedFunction, diffOptions: s.diffOptions, timelineStack: s.timelineStack,
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
    flameCanvas: () => (flame === null ? null : { width: flame.canvas.clientWidth, height: flame.canvas.clientHeight }),
    flameVisible: () => {
      const box = flame?.canvas.parentElement ?? null;
      return box === null ? null : { top: box.scrollTop, height: box.clientHeight };
    },
    flameHit: (x, y) => {
      const tree = flame?.renderer.tree ?? null;
      if (flame === null || tree === null) return null;
      const i = flame.renderer.hit(x, y);
      if (i < 0 || i >= tree.nodeCount) return null;
      return { ...node(tree, i), path: labelPath(tree, i) };
    },
    flameHitIndex: (x, y) => (flame === null ? -1 : flame.renderer.hit(x, y)),
    flamePath: (node) => {
      const tree = flame?.renderer.tree ?? null;
      return tree === null || node < 0 || node >= tree.nodeCount ? [] : labelPath(tree, node);
    },
    counterPoints: () => ws.counters.points(ws.state.selectedSessionId).length,
    output: () => ws.output.get(ws.state.selectedSessionId),
    flameDraws: () => [...flameDraws].sort((a, b) => a.seq - b.seq),
  };
  recordingDraws = true;
  (window as unknown as { __clrscopeTest: ClrscopeTestHook }).__clrscopeTest = hook;
}
