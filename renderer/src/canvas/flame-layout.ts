// The flame graph's geometry, free of any canvas: where each node sits, which nodes a frame
// must draw, which node a point is over, and which nodes a search matches. The renderer
// (flame-renderer.ts) only turns these numbers into pixels, so all of this is unit-tested in
// node.

import type { FlatTree } from '../worker/protocol.js';

export interface FlameLayout {
  /** Per node, its left edge in value units: the totals of everything before it on its row under the same parent chain. */
  x: Float64Array;
  /** Per node, the index just past its subtree (preorder keeps subtrees contiguous). */
  end: Int32Array;
  maxDepth: number;
}

/**
 * One pass in preorder. A node's left edge is its parent's when it is the first child, else
 * where its previous sibling ended; between two siblings only deeper nodes come, so one
 * cursor per depth remembers that. A subtree ends at the next node no deeper than its root,
 * which closes the open nodes on the current path.
 */
export function layoutTree(tree: FlatTree): FlameLayout {
  const n = tree.nodeCount;
  const { parent, depth, total } = tree;
  let maxDepth = 0;
  for (let i = 0; i < n; i++) if (depth[i] > maxDepth) maxDepth = depth[i];
  const x = new Float64Array(n);
  const end = new Int32Array(n);
  const cursor = new Float64Array(maxDepth + 1);
  const open = new Int32Array(maxDepth + 1);
  let top = -1;
  for (let i = 0; i < n; i++) {
    const d = depth[i];
    while (top >= d) end[open[top--]] = i;
    if (d > 0) {
      const p = parent[i];
      x[i] = p === i - 1 ? x[p] : cursor[d];
    }
    cursor[d] = x[i] + total[i];
    open[d] = i;
    top = d;
  }
  while (top >= 0) end[open[top--]] = n;
  return { x, end, maxDepth };
}

/**
 * What the canvas shows: the value range [start, end) across `width` CSS pixels and rows of
 * `rowHeight`. Not inverted (flame): the root's row is the bottom row and deeper frames go
 * up. Inverted (icicle): the root's row is the top row and deeper frames go down.
 */
export interface Viewport {
  start: number;
  end: number;
  width: number;
  height: number;
  rowHeight: number;
  inverted: boolean;
}

/** Top edge, in CSS pixels, of the row of nodes at `depth`. */
export function rowTop(depth: number, vp: Viewport): number {
  return vp.inverted ? depth * vp.rowHeight : vp.height - (depth + 1) * vp.rowHeight;
}

/** The depth whose row contains y, or -1 above/below every row. */
export function depthAtY(y: number, vp: Viewport): number {
  const d = vp.inverted ? Math.floor(y / vp.rowHeight) : Math.floor((vp.height - y) / vp.rowHeight);
  return d >= 0 && y >= 0 && y < vp.height ? d : -1;
}

/** The canvas height (CSS px) that shows every row of the tree. */
export function contentHeight(layout: FlameLayout, rowHeight: number): number {
  return (layout.maxDepth + 1) * rowHeight;
}

/** Marks a FramePlan item that is a merged run of slivers rather than one node. */
export const RUN = -1;

/**
 * Rectangles one frame draws, in CSS pixels; reused between frames to avoid garbage. Items of
 * one row come in left-to-right order, so a row's uncovered gaps can be found in one pass.
 */
export class FramePlan {
  count = 0;
  /** Node index, or RUN for adjacent nodes each too narrow to draw, merged into one rectangle. */
  node = new Int32Array(1024);
  left = new Float32Array(1024);
  width = new Float32Array(1024);
  depth = new Int32Array(1024);
  /** Deepest row with an item; -1 when nothing is drawn. */
  maxDepth = -1;

  add(node: number, left: number, width: number, depth: number): void {
    if (this.count === this.node.length) this.grow();
    const k = this.count;
    this.node[k] = node;
    this.left[k] = left;
    this.width[k] = width;
    this.depth[k] = depth;
    if (depth > this.maxDepth) this.maxDepth = depth;
    this.count = k + 1;
  }

  private grow(): void {
    const size = this.node.length * 2;
    const node = new Int32Array(size); node.set(this.node); this.node = node;
    const left = new Float32Array(size); left.set(this.left); this.left = left;
    const width = new Float32Array(size); width.set(this.width); this.width = width;
    const depth = new Int32Array(size); depth.set(this.depth); this.depth = depth;
  }
}

/**
 * Fills `plan` with what the viewport shows. Work is proportional to what is visible: a node
 * outside the value range, on a row off the canvas, or narrower than `minWidth` pixels is
 * not descended into (its subtree is no wider and no more visible). Narrow nodes next to each
 * other on a row merge into runs, so a region made of many tiny frames still shows as filled.
 * Widths are clipped to the canvas, so the zoomed node's ancestors span it exactly.
 */
export function planFrame(tree: FlatTree, layout: FlameLayout, vp: Viewport, minWidth: number, plan: FramePlan): void {
  plan.count = 0;
  plan.maxDepth = -1;
  const { x, end } = layout;
  const { total, depth } = tree;
  const n = tree.nodeCount;
  if (n === 0 || vp.end <= vp.start || vp.width <= 0) return;
  const scale = vp.width / (vp.end - vp.start);
  const start = vp.start;
  const rows = Math.ceil(vp.height / vp.rowHeight);
  // The open run of each row: [runL, runR) in pixels, runL < 0 when none.
  const runL = new Float64Array(rows + 1).fill(-1);
  const runR = new Float64Array(rows + 1);
  const closeRun = (d: number): void => {
    if (runL[d] >= 0 && runR[d] - runL[d] >= minWidth) plan.add(RUN, runL[d], runR[d] - runL[d], d);
    runL[d] = -1;
  };
  let i = 0;
  while (i < n) {
    const d = depth[i];
    const x0 = x[i];
    const x1 = x0 + total[i];
    if (d >= rows || x1 <= start || x0 >= vp.end || total[i] <= 0) {
      i = end[i];
      continue;
    }
    let left = (x0 - start) * scale;
    let right = (x1 - start) * scale;
    if (left < 0) left = 0;
    if (right > vp.width) right = vp.width;
    const w = right - left;
    if (w < minWidth) {
      // Extend this row's run when it touches it, otherwise close it and start another.
      if (runL[d] >= 0 && left <= runR[d] + minWidth) {
        if (right > runR[d]) runR[d] = right;
      } else {
        closeRun(d);
        runL[d] = left;
        runR[d] = right;
      }
      i = end[i];
      continue;
    }
    // A run to the left of this node ends here; closing it now keeps the row in x order.
    if (runL[d] >= 0) closeRun(d);
    plan.add(i, left, w, d);
    i++;
  }
  for (let d = 0; d <= rows; d++) closeRun(d);
}

/** The node drawn at (x, y) CSS pixels, or -1 (empty space, or a node too narrow to be drawn by itself). */
export function nodeAt(tree: FlatTree, layout: FlameLayout, vp: Viewport, px: number, py: number, minWidth: number): number {
  const target = depthAtY(py, vp);
  if (target < 0 || px < 0 || px >= vp.width || tree.nodeCount === 0) return -1;
  const scale = vp.width / (vp.end - vp.start);
  const v = vp.start + px / scale;
  const { x, end } = layout;
  let node = 0;
  if (!(x[0] <= v && v < x[0] + tree.total[0])) return -1;
  for (let d = 1; d <= target; d++) {
    let found = -1;
    for (let c = node + 1; c < end[node]; c = end[c]) {
      if (x[c] <= v && v < x[c] + tree.total[c]) {
        found = c;
        break;
      }
    }
    if (found < 0) return -1;
    node = found;
  }
  const left = Math.max(0, (x[node] - vp.start) * scale);
  const right = Math.min(vp.width, (x[node] + tree.total[node] - vp.start) * scale);
  return right - left >= minWidth ? node : -1;
}

export interface SearchResult {
  /** Value under matching nodes, each matching subtree counted once (a match inside a match adds nothing). */
  matchedValue: number;
  /** matchedValue / the tree's total, 0..1 (0 for an empty tree). */
  share: number;
  /** Nodes whose own label matches. */
  matchCount: number;
}

export interface SearchMatches extends SearchResult {
  /** Per node, 1 when its label matches. */
  matched: Uint8Array;
}

/**
 * A plain string matches labels containing it, ignoring case; a RegExp is tested as given
 * (its lastIndex is reset, so /g and /y patterns behave).
 */
export function searchTree(tree: FlatTree, layout: FlameLayout, query: string | RegExp): SearchMatches {
  const labelMatch = new Uint8Array(tree.labels.length);
  const matches = labelMatcher(query);
  tree.labels.forEach((name, l) => { labelMatch[l] = matches(name) ? 1 : 0; });
  const n = tree.nodeCount;
  const matched = new Uint8Array(n);
  let matchCount = 0;
  for (let i = 1; i < n; i++) {
    if (labelMatch[tree.label[i]] === 1) {
      matched[i] = 1;
      matchCount++;
    }
  }
  let matchedValue = 0;
  for (let i = 1; i < n;) {
    if (matched[i] === 1) {
      matchedValue += tree.total[i];
      i = layout.end[i];
    } else {
      i++;
    }
  }
  const total = n > 0 ? tree.total[0] : 0;
  return { matched, matchedValue, share: total > 0 ? matchedValue / total : 0, matchCount };
}

/** The search's test of one label (parseSearch's result): what the flame graph highlights and the tables show. */
export function labelMatcher(query: string | RegExp): (name: string) => boolean {
  if (typeof query === 'string') {
    const needle = query.toLowerCase();
    return (name) => needle !== '' && name.toLowerCase().includes(needle);
  }
  return (name) => {
    query.lastIndex = 0;
    return query.test(name);
  };
}

/**
 * Text as a search box gives it: `/pattern/flags` is a regular expression (an invalid one is
 * searched for literally), anything else a case-insensitive substring; empty means no search.
 */
export function parseSearch(text: string): string | RegExp | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const m = /^\/(.+)\/([a-z]*)$/.exec(trimmed);
  if (m !== null) {
    try {
      return new RegExp(m[1], m[2]);
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}

/**
 * The label as it fits in `width` pixels: whole, or cut with an ellipsis, or '' when not even
 * one character and the ellipsis fit. `fullWidth` is the text's measured width; characters
 * are assumed equally wide (cutting by measurement would cost a measureText per try, per
 * frame), with a small margin for the widest ones.
 */
export function fitLabel(text: string, fullWidth: number, width: number, ellipsisWidth: number): string {
  if (fullWidth <= width) return text;
  const charWidth = fullWidth / Math.max(1, text.length);
  const chars = Math.floor((width - ellipsisWidth) * 0.95 / charWidth);
  if (chars < 1) return '';
  return `${text.slice(0, chars)}…`;
}
