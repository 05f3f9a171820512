// A flame graph drawn on a 2D canvas from a FlatTree. SVG with one element per frame (what
// d3-flame-graph does) makes the browser lay out and paint 100,000 elements; here a frame is
// one fillRect, only what is visible and at least half a pixel wide is drawn, and all
// geometry comes from flame-layout.ts. See README.md in this folder for the API.

import type { FlatTree } from '../worker/protocol.js';
import {
  FramePlan, RUN, contentHeight, fitLabel, layoutTree, nodeAt, planFrame, rowTop, searchTree,
  type FlameLayout, type SearchMatches, type SearchResult, type Viewport,
} from './flame-layout.js';
import { paintBackground, type DevicePlan } from './flame-background.js';
import { NOT_ZOOMED, labelPath, sameZoom, zoomedNode, type ZoomPath } from './flame-zoom.js';
import { DIFF_BASE, MATCH_COLOR, PALETTE_SIZE, RUN_COLOR, buildPalette, paletteIndex, type FlameColors, type FlamePalette } from './flame-colors.js';

export type { SearchResult } from './flame-layout.js';

export interface FlameRendererOptions {
  /** Row height in CSS pixels (default 18). */
  rowHeight?: number;
  /** Canvas font for labels (default 12px system-ui). */
  font?: string;
  /** Frames narrower than this many CSS pixels are merged into runs or left out (default 0.5). */
  minFrameWidth?: number;
  /** Frames narrower than this get no label (default 40). */
  minLabelWidth?: number;
  /** Length of the zoom animation in ms; 0 jumps (default 180). */
  zoomAnimationMs?: number;
  colors?: Partial<FlameColors>;
  /** Called after every draw with the time draw() took (ms): for benchmarks and diagnostics. */
  onDraw?: (drawMs: number) => void;
}

export interface SetTreeOptions {
  /** The tree was built inverted: draw it as an icicle (root on top). Default false: flame, root at the bottom. */
  inverted?: boolean;
  /** Per node, a diff shade (flame-colors.ts diffShade) to colour it by instead of by its name: a differential flame graph. */
  shades?: Uint8Array;
  /** The zoom to show this tree at (flame-zoom.ts); without it the zoom stays on the path shown before. */
  zoom?: ZoomPath;
}

export interface FlameTooltip {
  node: number;
  label: string;
  /** 0 managed, 1 native, 2 synthetic, 3 thread. */
  kind: number;
  depth: number;
  /** In the tree's unit (ns of CPU or wall time for flame trees). */
  self: number;
  total: number;
  /** total as a percentage of the whole tree (the root), 0..100. */
  percentOfTotal: number;
  /** total as a percentage of the parent's total, 0..100 (100 for the root). */
  percentOfParent: number;
}

const LABEL_PADDING = 3;

// Label widths per font, shared by every renderer: labels repeat across live updates and
// across views, and measureText is one of the dearer canvas calls.
const textWidthsByFont = new Map<string, Map<string, number>>();

function widthCache(font: string): Map<string, number> {
  let cache = textWidthsByFont.get(font);
  if (cache === undefined) {
    cache = new Map();
    textWidthsByFont.set(font, cache);
  }
  return cache;
}

interface Animation {
  fromStart: number;
  fromEnd: number;
  startedAt: number;
  handle: number;
}

export class FlameRenderer {
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly rowHeight: number;
  private readonly font: string;
  private readonly minFrameWidth: number;
  private readonly minLabelWidth: number;
  private readonly animationMs: number;
  private colors: FlameColors;
  private readonly onDraw: ((drawMs: number) => void) | undefined;
  private readonly palette: FlamePalette = buildPalette();
  private readonly plan = new FramePlan();
  /** The plan in device pixels (see snapToDevicePixels), reused between frames. */
  private readonly px: DevicePlan = { x0: new Int32Array(1024), x1: new Int32Array(1024), rowY: new Int32Array(64), frameY: new Int32Array(64), rowEnd: new Int32Array(64) };
  private readonly textWidths: Map<string, number>;
  private ellipsisWidth = 0;

  private treeValue: FlatTree | null = null;
  private layout: FlameLayout | null = null;
  private inverted = false;
  /** Palette entry per label of the current tree. */
  private labelColor = new Int32Array(0);
  private shades: Uint8Array | null = null;
  private labelWidth = new Float64Array(0);

  // The zoom is a path of labels (flame-zoom.ts); zoomNode is where it leads in the current tree.
  private zoomNode = 0;
  private zoomLabels: ZoomPath = NOT_ZOOMED;
  private viewStart = 0;
  private viewEnd = 0;
  private animation: Animation | null = null;

  private searchQuery: string | RegExp | null = null;
  private matches: SearchMatches | null = null;
  private hover = -1;

  private cssWidth = 0;
  private cssHeight = 0;
  private dpr = 1;
  private sizedByCaller = false;
  private drawHandle = 0;
  private dirty = false;

  constructor(canvas: HTMLCanvasElement, options: FlameRendererOptions = {}) {
    this.canvas = canvas;
    const ctx = canvas.getContext('2d', { alpha: false });
    if (ctx === null) throw new Error('The flame graph needs a 2D canvas context, and this canvas has none.');
    this.ctx = ctx;
    this.rowHeight = options.rowHeight ?? 18;
    this.font = options.font ?? '12px system-ui, -apple-system, "Segoe UI", sans-serif';
    this.textWidths = widthCache(this.font);
    this.minFrameWidth = options.minFrameWidth ?? 0.5;
    this.minLabelWidth = options.minLabelWidth ?? 40;
    this.animationMs = options.zoomAnimationMs ?? 180;
    this.colors = { background: '#ffffff', text: '#1b1b1b', dimText: '#5a5a5a', ...options.colors };
    this.onDraw = options.onDraw;
  }

  get tree(): FlatTree | null {
    return this.treeValue;
  }

  /** The node the view is zoomed to; 0 (the root) when not zoomed. */
  get zoomedNode(): number {
    return this.zoomNode;
  }

  /** The zoom as a path of labels; NOT_ZOOMED when the whole tree is shown. */
  get zoom(): ZoomPath {
    return this.zoomLabels;
  }

  /**
   * Shows `tree`. A live update keeps the zoom on the same path of labels (or the deepest
   * part of it that still exists: flame-zoom.ts) and re-applies the search. Redraws on the
   * next frame.
   */
  setTree(tree: FlatTree, options: SetTreeOptions = {}): void {
    this.stopAnimation();
    this.treeValue = tree;
    this.inverted = options.inverted ?? false;
    this.shades = options.shades ?? null;
    this.layout = layoutTree(tree);
    this.labelColor = new Int32Array(tree.labels.length);
    this.labelWidth = new Float64Array(tree.labels.length).fill(-1);
    tree.labels.forEach((name, l) => { this.labelColor[l] = paletteIndex(name, tree.labelKind[l]); });
    if (options.zoom !== undefined) this.zoomLabels = options.zoom;
    this.zoomNode = zoomedNode(tree, this.layout.end, this.zoomLabels);
    this.setRangeTo(this.zoomNode);
    this.matches = this.searchQuery === null ? null : searchTree(tree, this.layout, this.searchQuery);
    this.hover = -1;
    this.requestDraw();
  }

  /** Zooms so `node` spans the width; its ancestors stay drawn, full width. Animated unless zoomAnimationMs is 0. */
  zoomTo(node: number): void {
    const tree = this.treeValue;
    if (tree === null || this.layout === null || node < 0 || node >= tree.nodeCount) return;
    this.zoomNode = node;
    this.zoomLabels = labelPath(tree, node);
    this.animateTo(node);
  }

  /** Zooms to where `path` leads in the shown tree (flame-zoom.ts's rule), animated; nothing when it is the zoom already. */
  zoomToPath(path: ZoomPath): void {
    if (sameZoom(path, this.zoomLabels)) return;
    this.zoomLabels = path;
    const tree = this.treeValue;
    if (tree === null || this.layout === null) return;
    this.zoomNode = zoomedNode(tree, this.layout.end, path);
    this.animateTo(this.zoomNode);
  }

  resetZoom(): void {
    this.zoomTo(0);
  }

  /**
   * Highlights frames whose label matches (a plain string: case-insensitive substring; a
   * RegExp as given; null or '' clears) and dims the rest. Returns the matched value, each
   * matching subtree counted once, and its share of the whole tree.
   */
  search(query: string | RegExp | null): SearchResult {
    this.searchQuery = query === '' ? null : query;
    const tree = this.treeValue;
    this.matches = this.searchQuery === null || tree === null || this.layout === null ? null : searchTree(tree, this.layout, this.searchQuery);
    this.requestDraw();
    if (this.matches === null) return { matchedValue: 0, share: 0, matchCount: 0 };
    const { matchedValue, share, matchCount } = this.matches;
    return { matchedValue, share, matchCount };
  }

  /** The node under (x, y), CSS pixels relative to the canvas's top-left corner; -1 for none. */
  hit(x: number, y: number): number {
    const tree = this.treeValue;
    if (tree === null || this.layout === null) return -1;
    return nodeAt(tree, this.layout, this.viewport(), x, y, this.minFrameWidth);
  }

  tooltip(node: number): FlameTooltip | null {
    const tree = this.treeValue;
    if (tree === null || node < 0 || node >= tree.nodeCount) return null;
    const l = tree.label[node];
    const parent = tree.parent[node];
    const whole = tree.total[0];
    return {
      node,
      label: tree.labels[l],
      kind: tree.labelKind[l],
      depth: tree.depth[node],
      self: tree.self[node],
      total: tree.total[node],
      percentOfTotal: whole > 0 ? (100 * tree.total[node]) / whole : 0,
      percentOfParent: parent < 0 ? 100 : tree.total[parent] > 0 ? (100 * tree.total[node]) / tree.total[parent] : 0,
    };
  }

  /** Outlines `node` (-1: none), e.g. the one under the mouse. */
  setHover(node: number): void {
    if (node === this.hover) return;
    this.hover = node;
    this.requestDraw();
  }

  /** CSS height that shows every row; size the canvas to at least this (in a scrolling box) to see the deepest frames. */
  contentHeight(): number {
    return this.layout === null ? this.rowHeight : contentHeight(this.layout, this.rowHeight);
  }

  /**
   * Sets the drawing size explicitly. Without it, draw() follows the canvas's CSS size
   * (clientWidth/clientHeight) and window.devicePixelRatio.
   */
  resize(cssWidth: number, cssHeight: number, dpr: number = globalThis.devicePixelRatio ?? 1): void {
    this.sizedByCaller = true;
    this.applySize(cssWidth, cssHeight, dpr);
    this.requestDraw();
  }

  /** Draws on the next animation frame (several requests in one frame draw once). */
  /** The theme's colours (the page's light or dark setting changed). */
  setColors(colors: FlameColors): void {
    this.colors = colors;
    this.requestDraw();
  }

  requestDraw(): void {
    this.dirty = true;
    if (this.drawHandle !== 0 || typeof requestAnimationFrame !== 'function') return;
    this.drawHandle = requestAnimationFrame(() => {
      this.drawHandle = 0;
      if (this.dirty) this.draw();
    });
  }

  /** Draws now. */
  draw(): void {
    const started = performance.now();
    this.dirty = false;
    if (!this.sizedByCaller) this.applySize(this.canvas.clientWidth, this.canvas.clientHeight, globalThis.devicePixelRatio ?? 1);
    const ctx = this.ctx;
    const tree = this.treeValue;
    // Rectangles go in whole device pixels, without the DPR scale: edges on pixel boundaries
    // fill without anti-aliasing (cheaper to rasterize, and crisp) and neighbours never
    // leave a seam. Text and the hover outline are drawn in CSS pixels.
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (tree !== null && this.layout !== null && tree.nodeCount > 0 && tree.total[0] > 0) {
      const vp = this.viewport();
      planFrame(tree, this.layout, vp, this.minFrameWidth, this.plan);
      this.snapToDevicePixels(vp);
      paintBackground(this.ctx, this.plan, this.px, this.canvas.width, this.canvas.height, this.inverted, this.colors.background);
      this.drawFrames(tree);
      ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
      this.drawLabels(tree, vp);
      this.drawHover(tree, vp);
    } else {
      ctx.fillStyle = this.colors.background;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    }
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    this.onDraw?.(performance.now() - started);
  }

  /** Stops pending frames and animations; the canvas keeps its last picture. */
  dispose(): void {
    this.stopAnimation();
    if (this.drawHandle !== 0 && typeof cancelAnimationFrame === 'function') cancelAnimationFrame(this.drawHandle);
    this.drawHandle = 0;
  }

  private viewport(): Viewport {
    return { start: this.viewStart, end: this.viewEnd, width: this.cssWidth, height: this.cssHeight, rowHeight: this.rowHeight, inverted: this.inverted };
  }

  private applySize(cssWidth: number, cssHeight: number, dpr: number): void {
    const w = Math.max(0, cssWidth);
    const h = Math.max(0, cssHeight);
    const pw = Math.round(w * dpr);
    const ph = Math.round(h * dpr);
    if (this.canvas.width !== pw) this.canvas.width = pw;
    if (this.canvas.height !== ph) this.canvas.height = ph;
    this.cssWidth = w;
    this.cssHeight = h;
    this.dpr = dpr;
  }

  private setRangeTo(node: number): void {
    const tree = this.treeValue;
    if (tree === null || this.layout === null || tree.nodeCount === 0) {
      this.viewStart = 0;
      this.viewEnd = 0;
      return;
    }
    this.viewStart = this.layout.x[node];
    this.viewEnd = this.layout.x[node] + tree.total[node];
  }

  private animateTo(node: number): void {
    const from = { start: this.viewStart, end: this.viewEnd };
    this.stopAnimation();
    this.setRangeTo(node);
    if (this.animationMs <= 0 || typeof requestAnimationFrame !== 'function' || from.end <= from.start) {
      this.requestDraw();
      return;
    }
    const target = { start: this.viewStart, end: this.viewEnd };
    const animation: Animation = { fromStart: from.start, fromEnd: from.end, startedAt: performance.now(), handle: 0 };
    const step = (now: number): void => {
      const t = Math.min(1, (now - animation.startedAt) / this.animationMs);
      const e = 1 - (1 - t) ** 3;
      this.viewStart = animation.fromStart + (target.start - animation.fromStart) * e;
      this.viewEnd = animation.fromEnd + (target.end - animation.fromEnd) * e;
      this.draw();
      if (t < 1) animation.handle = requestAnimationFrame(step);
      else this.animation = null;
    };
    this.animation = animation;
    this.viewStart = from.start;
    this.viewEnd = from.end;
    animation.handle = requestAnimationFrame(step);
  }

  private stopAnimation(): void {
    if (this.animation === null) return;
    if (typeof cancelAnimationFrame === 'function') cancelAnimationFrame(this.animation.handle);
    this.animation = null;
    this.setRangeTo(this.zoomNode);
  }

  /**
   * Each planned rectangle in device pixels: x0/x1 across (never under one pixel wide); per
   * row its top (rowY), the bottom of its frames (frameY) and its end (rowEnd): the last CSS
   * pixel of a row is a gap.
   */
  private snapToDevicePixels(vp: Viewport): void {
    const plan = this.plan;
    const dpr = this.dpr;
    if (this.px.x0.length < plan.count) {
      const size = Math.max(plan.count, this.px.x0.length * 2);
      this.px.x0 = new Int32Array(size);
      this.px.x1 = new Int32Array(size);
    }
    const { x0, x1 } = this.px;
    for (let k = 0; k < plan.count; k++) {
      const w = plan.width[k];
      // A one-pixel gap separates neighbours once frames are wide enough to spare it.
      const drawn = w > 3 ? w - 1 : w;
      const a = Math.round(plan.left[k] * dpr);
      x0[k] = a;
      x1[k] = Math.max(a + 1, Math.round((plan.left[k] + drawn) * dpr));
    }
    const rows = plan.maxDepth + 1;
    if (this.px.rowY.length < rows + 1) {
      this.px.rowY = new Int32Array(rows + 1);
      this.px.frameY = new Int32Array(rows + 1);
      this.px.rowEnd = new Int32Array(rows + 1);
    }
    for (let d = 0; d < rows; d++) {
      const top = rowTop(d, vp);
      this.px.rowY[d] = Math.round(top * dpr);
      this.px.frameY[d] = Math.round((top + this.rowHeight - 1) * dpr);
      this.px.rowEnd[d] = Math.round((top + this.rowHeight) * dpr);
    }
  }

  /** Frames grouped by palette entry, so the fill colour changes a few dozen times a frame, not once per frame. */
  private drawFrames(tree: FlatTree): void {
    const plan = this.plan;
    const matched = this.matches?.matched;
    const entries = PALETTE_SIZE * 2;
    const colorOf = new Int32Array(plan.count);
    const counts = new Int32Array(entries + 1);
    for (let k = 0; k < plan.count; k++) {
      const node = plan.node[k];
      let c: number;
      if (node === RUN) c = matched === undefined ? RUN_COLOR : PALETTE_SIZE + RUN_COLOR;
      else {
        const own = this.shades !== null ? DIFF_BASE + this.shades[node] : this.labelColor[tree.label[node]];
        if (matched === undefined) c = own;
        else c = matched[node] === 1 ? MATCH_COLOR : PALETTE_SIZE + own;
      }
      colorOf[k] = c;
      counts[c + 1]++;
    }
    for (let c = 0; c < entries; c++) counts[c + 1] += counts[c];
    const order = new Int32Array(plan.count);
    const fill = counts.slice(0, entries);
    for (let k = 0; k < plan.count; k++) order[fill[colorOf[k]]++] = k;
    const ctx = this.ctx;
    const { x0, x1, rowY, frameY } = this.px;
    for (let c = 0; c < entries; c++) {
      const from = counts[c];
      const to = counts[c + 1];
      if (from === to) continue;
      ctx.fillStyle = c < PALETTE_SIZE ? this.palette.normal[c] : this.palette.dimmed[c - PALETTE_SIZE];
      // fillRect, not one path of rects: axis-aligned rectangles take the rasterizer's fast
      // path, while a path of thousands of rectangles is scan-converted edge by edge.
      for (let o = from; o < to; o++) {
        const k = order[o];
        const d = plan.depth[k];
        ctx.fillRect(x0[k], rowY[d], x1[k] - x0[k], frameY[d] - rowY[d]);
      }
    }
  }

  private drawLabels(tree: FlatTree, vp: Viewport): void {
    const plan = this.plan;
    const ctx = this.ctx;
    ctx.font = this.font;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    if (this.ellipsisWidth === 0) this.ellipsisWidth = ctx.measureText('…').width;
    const matched = this.matches?.matched;
    let current = '';
    const half = (this.rowHeight - 1) / 2;
    for (let k = 0; k < plan.count; k++) {
      const w = plan.width[k];
      if (w < this.minLabelWidth) continue;
      const node = plan.node[k];
      if (node === RUN) continue;
      const l = tree.label[node];
      const name = tree.labels[l];
      let full = this.labelWidth[l];
      if (full < 0) {
        full = this.measure(name);
        this.labelWidth[l] = full;
      }
      const text = fitLabel(name, full, w - 2 * LABEL_PADDING, this.ellipsisWidth);
      if (text === '') continue;
      const color = matched !== undefined && matched[node] === 0 ? this.colors.dimText : this.colors.text;
      if (color !== current) {
        ctx.fillStyle = color;
        current = color;
      }
      ctx.fillText(text, plan.left[k] + LABEL_PADDING, rowTop(tree.depth[node], vp) + half);
    }
  }

  private drawHover(tree: FlatTree, vp: Viewport): void {
    const node = this.hover;
    if (node < 0 || node >= tree.nodeCount || this.layout === null) return;
    const scale = vp.width / (vp.end - vp.start);
    const left = Math.max(0, (this.layout.x[node] - vp.start) * scale);
    const right = Math.min(vp.width, (this.layout.x[node] + tree.total[node] - vp.start) * scale);
    if (right <= left) return;
    const ctx = this.ctx;
    ctx.strokeStyle = '#000000';
    ctx.lineWidth = 1;
    ctx.strokeRect(left + 0.5, rowTop(tree.depth[node], vp) + 0.5, Math.max(1, right - left - 1), this.rowHeight - 2);
  }

  /** Width of a label in the renderer's font, remembered across trees and renderers. */
  private measure(text: string): number {
    let w = this.textWidths.get(text);
    if (w === undefined) {
      w = this.ctx.measureText(text).width;
      this.textWidths.set(text, w);
    }
    return w;
  }
}
