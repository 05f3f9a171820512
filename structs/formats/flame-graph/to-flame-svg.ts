// A flame graph as flamegraph.pl draws it: an SVG of 1200 px, the root at the bottom, frames
// coloured from the "hot" palette by name, a tooltip (<title>) per frame with its value and
// share, the names cut with ".." where they do not fit. It opens in any browser and pastes into
// an issue as it is; it has no script.

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

/** The x and width of every node, in pixels, laid out as the preorder gives them. */
function layout(tree: FlameTree, width: number): { x: Float64Array; w: Float64Array } {
  const n = tree.name.length;
  const x = new Float64Array(n);
  const w = new Float64Array(n);
  const scale = tree.total[0] > 0 ? width / tree.total[0] : 0;
  // The next free x at each depth under the current parent.
  const next: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = tree.depth[i];
    x[i] = d === 0 ? 0 : next[d];
    w[i] = tree.total[i] * scale;
    next[d] = x[i] + w[i];
    next[d + 1] = x[i];
  }
  return { x, w };
}

export function flameSvg(tree: FlameTree, title: string): string {
  const maxDepth = tree.depth.reduce((m, d) => Math.max(m, d), 0);
  const height = TITLE_PAD + (maxDepth + 1) * FRAME_HEIGHT + BOTTOM_PAD;
  const inner = WIDTH - 2 * X_PAD;
  const { x, w } = layout(tree, inner);
  const total = tree.total[0];
  const out: string[] = [
    '<?xml version="1.0" standalone="no"?>\n',
    `<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">\n`,
    `<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#f8f8f0"/>\n`,
    `<text x="${WIDTH / 2}" y="${FONT_SIZE * 2}" text-anchor="middle" font-family="Verdana, sans-serif" font-size="${FONT_SIZE + 5}">${escapeXml(title)}</text>\n`,
    `<text x="${X_PAD}" y="${height - FONT_SIZE / 2}" font-family="Verdana, sans-serif" font-size="${FONT_SIZE}" fill="#555">${escapeXml(`${tree.title}: ${formatValue(total, tree.unit)} in all`)}</text>\n`,
    `<g font-family="Verdana, sans-serif" font-size="${FONT_SIZE}">\n`,
  ];
  for (let i = 0; i < tree.name.length; i++) {
    if (w[i] < MIN_WIDTH) continue;
    const name = tree.names[tree.name[i]];
    const rx = X_PAD + x[i];
    const ry = height - BOTTOM_PAD - (tree.depth[i] + 1) * FRAME_HEIGHT;
    const share = total > 0 ? (100 * tree.total[i]) / total : 0;
    const tip = `${name} (${formatValue(tree.total[i], tree.unit)}, ${share.toFixed(2)}%)`;
    const label = fitLabel(name, w[i] - 6);
    out.push(
      `<g class="frame"><title>${escapeXml(tip)}</title><rect x="${rx.toFixed(1)}" y="${ry}" width="${w[i].toFixed(1)}" height="${FRAME_HEIGHT - 1}" fill="${i === 0 ? 'rgb(230,120,60)' : hotColour(name)}" rx="2" ry="2"/>`
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
