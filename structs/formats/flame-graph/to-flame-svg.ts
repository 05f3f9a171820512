// A flame graph as flamegraph.pl draws it: an SVG of 1200 px, the root at the bottom (at the top
// for an icicle), frames coloured from the "hot" palette by name, search matches in magenta, a
// tooltip (<title>) per frame with its value and share of the whole, the names cut with ".."
// where they do not fit. Zoomed, the frame fills the width with its callers full width beside it,
// as the workstation draws a zoom. It opens in any browser and pastes into an issue as it is; it
// has no script. Each frame carries its exact value (data-total) for tools that read it back.

import type { Recording } from '../../profile/recording.js';
import type { ProfileMetric } from '../../profile/event-metrics.js';
import { buildFlameTree, formatValue, type FlameTree } from './flame-tree.js';

const WIDTH = 1200;
const FRAME_HEIGHT = 16;
const FONT_SIZE = 12;
// flamegraph.pl's average glyph width as a share of the font size.
const FONT_WIDTH = 0.59;
const X_PAD = 10;
const TITLE_PAD = FONT_SIZE * 3;
const BOTTOM_PAD = FONT_SIZE * 2 + 10;
/** Frames narrower than this (px) are not drawn, as flamegraph.pl's --minwidth. */
const MIN_WIDTH = 0.1;

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A stable 0..1 from a name, so a function keeps its colour from one graph to the next. */
function nameHash(name: string, seed: number): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return ((h >>> 0) % 1000) / 1000;
}

/** flamegraph.pl's "hot" palette: reds to yellows. */
export function hotColour(name: string): string {
  const r = 205 + Math.round(50 * nameHash(name, 1));
  const g = Math.round(230 * nameHash(name, 2));
  const b = Math.round(55 * nameHash(name, 3));
  return `rgb(${r},${g},${b})`;
}

/** The name cut to what fits in `widthPx`, with "..", or nothing when not even three characters fit. */
export function fitLabel(name: string, widthPx: number): string {
  const chars = Math.floor(widthPx / (FONT_SIZE * FONT_WIDTH));
  if (chars < 3) return '';
  return name.length <= chars ? name : `${name.slice(0, chars - 2)}..`;
}

/** flamegraph.pl's colour for a frame the search matched. */
export const MATCH_COLOUR = 'rgb(230,0,230)';

/** How the graph is drawn: zoomed on a node, with the search's matches, as an icicle. */
export interface SvgOptions {
  /** The node (index in preorder) that fills the width; 0 or absent: the root. */
  zoom?: number;
  /** Names the search matched, drawn in magenta. */
  match?: ((name: string) => boolean) | null;
  /** Root at the top, leaves below. */
  inverted?: boolean;
  /** Said at the bottom after the total (the search and what it matched, the zoom). */
  caption?: string;
}

/** Each node's subtree end (the index past it) and parent, from the preorder's depths. */
export function treeLinks(depth: readonly number[]): { end: Int32Array; parent: Int32Array } {
  const n = depth.length;
  const end = new Int32Array(n);
  const parent = new Int32Array(n);
  const open: number[] = [];
  for (let i = 0; i < n; i++) {
    while (open.length > depth[i]) end[open.pop() as number] = i;
    parent[i] = open.length > 0 ? open[open.length - 1] : -1;
    open.push(i);
  }
  while (open.length > 0) end[open.pop() as number] = n;
  return { end, parent };
}

/**
 * The x and width of every drawn node, in pixels: the zoomed node's subtree laid out as the
 * preorder gives it, scaled so the zoomed node fills `width`, and its callers full width.
 */
function layout(tree: FlameTree, width: number, zoom: number): { x: Float64Array; w: Float64Array; drawn: Uint8Array } {
  const n = tree.name.length;
  const x = new Float64Array(n);
  const w = new Float64Array(n);
  const drawn = new Uint8Array(n);
  const { end, parent } = treeLinks(tree.depth);
  for (let a = parent[zoom]; a >= 0; a = parent[a]) {
    w[a] = width;
    drawn[a] = 1;
  }
  const scale = tree.total[zoom] > 0 ? width / tree.total[zoom] : 0;
  // The next free x at each depth under the current parent.
  const next: number[] = [];
  for (let i = zoom; i < end[zoom]; i++) {
    const d = tree.depth[i];
    x[i] = i === zoom ? 0 : next[d];
    w[i] = tree.total[i] * scale;
    next[d] = x[i] + w[i];
    next[d + 1] = x[i];
    drawn[i] = 1;
  }
  return { x, w, drawn };
}

export function flameSvg(tree: FlameTree, title: string, options: SvgOptions = {}): string {
  const maxDepth = tree.depth.reduce((m, d) => Math.max(m, d), 0);
  const height = TITLE_PAD + (maxDepth + 1) * FRAME_HEIGHT + BOTTOM_PAD;
  const inner = WIDTH - 2 * X_PAD;
  const zoom = options.zoom !== undefined && options.zoom > 0 && options.zoom < tree.name.length ? options.zoom : 0;
  const { x, w, drawn } = layout(tree, inner, zoom);
  const match = options.match ?? null;
  const total = tree.total[0];
  const said = `${tree.title}: ${formatValue(total, tree.unit)} in all${options.caption === undefined || options.caption === '' ? '' : `; ${options.caption}`}`;
  const out: string[] = [
    '<?xml version="1.0" standalone="no"?>\n',
    `<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">\n`,
    `<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#f8f8f0"/>\n`,
    `<text x="${WIDTH / 2}" y="${FONT_SIZE * 2}" text-anchor="middle" font-family="Verdana, sans-serif" font-size="${FONT_SIZE + 5}">${escapeXml(title)}</text>\n`,
    `<text x="${X_PAD}" y="${height - FONT_SIZE / 2}" font-family="Verdana, sans-serif" font-size="${FONT_SIZE}" fill="#555">${escapeXml(said)}</text>\n`,
    `<g font-family="Verdana, sans-serif" font-size="${FONT_SIZE}">\n`,
  ];
  for (let i = 0; i < tree.name.length; i++) {
    if (drawn[i] === 0 || w[i] < MIN_WIDTH) continue;
    const name = tree.names[tree.name[i]];
    const rx = X_PAD + x[i];
    const ry = options.inverted === true ? TITLE_PAD + tree.depth[i] * FRAME_HEIGHT : height - BOTTOM_PAD - (tree.depth[i] + 1) * FRAME_HEIGHT;
    const fill = i > 0 && match !== null && match(name) ? MATCH_COLOUR : i === 0 ? 'rgb(230,120,60)' : hotColour(name);
    const share = total > 0 ? (100 * tree.total[i]) / total : 0;
    const tip = `${name} (${formatValue(tree.total[i], tree.unit)}, ${share.toFixed(2)}%)`;
    const label = fitLabel(name, w[i] - 6);
    out.push(
      `<g class="frame" data-depth="${tree.depth[i]}" data-total="${tree.total[i]}"><title>${escapeXml(tip)}</title><rect x="${rx.toFixed(1)}" y="${ry}" width="${w[i].toFixed(1)}" height="${FRAME_HEIGHT - 1}" fill="${fill}" rx="2" ry="2"/>`
      + (label === '' ? '' : `<text x="${(rx + 3).toFixed(1)}" y="${ry + FRAME_HEIGHT - 4.5}">${escapeXml(label)}</text>`)
      + '</g>\n',
    );
  }
  out.push('</g>\n</svg>\n');
  return out.join('');
}

/** The recording's flame graph of `metric` (CPU unless it has no samples) as an SVG. */
export function recordingFlameSvg(rec: Recording, metric: ProfileMetric, title: string): string {
  return flameSvg(buildFlameTree(rec, metric), title);
}
