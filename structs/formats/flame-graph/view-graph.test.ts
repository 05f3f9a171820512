import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlatTree } from '../../analysis/flat-tree.js';
import { flameTreeOfView, matchedShare, nodeAtPath, viewFlameHtml, viewFlameSvg, type ViewGraph } from './view-graph.js';
import { MATCH_COLOUR } from './to-flame-svg.js';

/** A FlatTree from [label, depth, total] rows in preorder (the root first). */
function flat(rows: readonly [string, number, number][]): FlatTree {
  const labels = [...new Set(rows.map((r) => r[0]))];
  const n = rows.length;
  const parent = new Int32Array(n);
  const open: number[] = [];
  rows.forEach(([, d], i) => {
    open.length = d;
    parent[i] = d === 0 ? -1 : open[d - 1];
    open.push(i);
  });
  return {
    nodeCount: n, label: Int32Array.from(rows.map((r) => labels.indexOf(r[0]))), parent, depth: Uint16Array.from(rows.map((r) => r[1])),
    total: Float64Array.from(rows.map((r) => r[2])), self: new Float64Array(n), labels, labelKind: new Uint8Array(labels.length), totalValue: rows[0][2], sampleCount: 10,
  };
}

// all 100: Main 90 (Work 60 (Hot 40), Idle 30 (Hot 10)), Tiny 0.001 , Gc 10
const TREE = flat([['root', 0, 100], ['Main', 1, 90], ['Work', 2, 60], ['Hot', 3, 40], ['Idle', 2, 30], ['Hot', 3, 10], ['Tiny', 1, 0.001], ['Gc', 1, 9.999]]);

function view(patch: Partial<ViewGraph> = {}): ViewGraph {
  return { tree: TREE, metric: 'cpu', zoom: [], search: '', match: null, inverted: false, title: 'Flame graph of test (clrscope)', ...patch };
}

interface Frame { name: string; total: number; depth: number; x: number; y: number; width: number; fill: string }

function frames(svg: string): Frame[] {
  return [...svg.matchAll(/<g class="frame" data-depth="(\d+)" data-total="([\d.e-]+)"><title>(.*?) \([^<]*\)<\/title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="\d+" fill="([^"]+)"/g)]
    .map((m) => ({ depth: Number(m[1]), total: Number(m[2]), name: m[3], x: Number(m[4]), y: Number(m[5]), width: Number(m[6]), fill: m[7] }));
}

test('the view\'s tree keeps its preorder, the root named "all", small frames left out only when asked', () => {
  const whole = flameTreeOfView(TREE, 'cpu');
  assert.deepEqual(whole.name.map((i) => whole.names[i]), ['all', 'Main', 'Work', 'Hot', 'Idle', 'Hot', 'Tiny', 'Gc']);
  assert.deepEqual(whole.total, [100, 90, 60, 40, 30, 10, 0.001, 9.999]);
  assert.equal(whole.title, 'CPU time');
  const bounded = flameTreeOfView(TREE, 'cpu', 1 / 5000);
  assert.deepEqual(bounded.name.map((i) => bounded.names[i]), ['all', 'Main', 'Work', 'Hot', 'Idle', 'Hot', 'Gc']);
  assert.equal(nodeAtPath(whole, ['Main', 'Idle', 'Hot']), 5);
  assert.equal(nodeAtPath(whole, ['Main', 'Gone']), 1, 'the deepest frame of the path the tree has');
  assert.deepEqual(matchedShare(whole, (n) => n === 'Hot' || n === 'Main'), { count: 3, share: 0.9 });
});

test('the SVG draws the whole view: every frame at its share of 1180 px, its exact value kept', () => {
  const svg = viewFlameSvg(view());
  const f = frames(svg);
  assert.deepEqual(f.map((x) => x.name), ['all', 'Main', 'Work', 'Hot', 'Idle', 'Hot', 'Gc'], 'Tiny is under 0.1 px');
  assert.equal(f[0].width, 1180);
  assert.equal(f[2].width, 708);
  assert.equal(f[4].x, 10 + 708);
  assert.deepEqual(f.map((x) => x.total), [100, 90, 60, 40, 30, 10, 9.999]);
  assert.ok(f[0].y > f[1].y, 'a flame: the root at the bottom');
  assert.match(svg, /CPU time: 0 ms in all</);
});

test('zoomed, the frame fills the width with its callers full width; matches are magenta and counted over the whole', () => {
  const svg = viewFlameSvg(view({ zoom: ['Main', 'Work'], match: (n) => n === 'Hot' }));
  const f = frames(svg);
  assert.deepEqual(f.map((x) => [x.name, x.width]), [['all', 1180], ['Main', 1180], ['Work', 1180], ['Hot', 786.7]]);
  assert.equal(f[3].fill, MATCH_COLOUR);
  assert.notEqual(f[2].fill, MATCH_COLOUR);
  assert.match(svg, /zoomed to Work; matched 2 frames, 50\.00% of all</);
  const icicle = frames(viewFlameSvg(view({ inverted: true })));
  assert.ok(icicle[0].y < icicle[1].y, 'an icicle: the root at the top');
});

test('the HTML page carries the view\'s tree and opens at its zoom and search', () => {
  const html = viewFlameHtml(view({ zoom: ['Main', 'Idle'], search: 'Hot' }));
  const data = JSON.parse(/<script type="application\/json" id="flame-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { trees: { total: number[] }[]; start: unknown };
  assert.equal(data.trees.length, 1);
  assert.deepEqual(data.trees[0].total, [100, 90, 60, 40, 30, 10, 9.999]);
  assert.deepEqual(data.start, { zoom: ['Main', 'Idle'], search: 'Hot' });
});
