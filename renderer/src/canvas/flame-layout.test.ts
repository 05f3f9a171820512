import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { buildFlameTree } from '../worker/flame-tree.js';
import type { FlatTree } from '../worker/protocol.js';
import {
  FramePlan, RUN, contentHeight, depthAtY, fitLabel, layoutTree, nodeAt, parseSearch, planFrame, rowTop, searchTree,
  type Viewport,
} from './flame-layout.js';

function tree(text: string, inverted = false): FlatTree {
  return buildFlameTree(recordingFromStream([streamFromCollapsed(text)]), { metric: 'cpu', threadIds: null, inverted, groupByThread: false });
}

const nodeNamed = (t: FlatTree, name: string, nth = 0): number => {
  const all = Array.from({ length: t.nodeCount }, (_, i) => i).filter((i) => t.labels[t.label[i]] === name);
  return all[nth] ?? -1;
};

// all 100 = A 60 (B 40 (C 10), D 20) + E 40 (B 25)
const t = tree(`
  x;A;B;C 10
  x;A;B 30
  x;A;D 20
  x;E 15
  x;E;B 25
`);
const layout = layoutTree(t);
const vp = (over: Partial<Viewport> = {}): Viewport => ({ start: 0, end: 100, width: 1000, height: 200, rowHeight: 20, inverted: false, ...over });

test('x from cumulative totals of earlier siblings; subtree ends; max depth', () => {
  const named = (n: string, k = 0): number => nodeNamed(t, n, k);
  assert.deepEqual([named('A'), named('B'), named('C'), named('D'), named('E'), named('B', 1)].map((i) => layout.x[i]), [0, 0, 0, 40, 60, 60]);
  assert.equal(layout.end[0], t.nodeCount);
  assert.equal(layout.end[named('A')], named('E'));
  assert.equal(layout.maxDepth, 3);
  assert.equal(contentHeight(layout, 20), 80);
});

test('rows: flame puts the root at the bottom, icicle at the top', () => {
  assert.equal(rowTop(0, vp()), 180);
  assert.equal(rowTop(2, vp()), 140);
  assert.equal(rowTop(0, vp({ inverted: true })), 0);
  assert.equal(rowTop(2, vp({ inverted: true })), 40);
  assert.equal(depthAtY(185, vp()), 0);
  assert.equal(depthAtY(141, vp()), 2);
  assert.equal(depthAtY(41, vp({ inverted: true })), 2);
  assert.equal(depthAtY(-1, vp()), -1);
  assert.equal(depthAtY(200, vp()), -1);
});

test('planFrame draws every node wide enough, in pixels', () => {
  const plan = new FramePlan();
  planFrame(t, layout, vp(), 0.5, plan);
  assert.equal(plan.count, t.nodeCount);
  const e = nodeNamed(t, 'E');
  const k = Array.from(plan.node.subarray(0, plan.count)).indexOf(e);
  assert.equal(plan.left[k], 600);
  assert.equal(plan.width[k], 400);
  assert.ok(Array.from(plan.node.subarray(0, plan.count)).every((n) => n !== RUN));
  assert.equal(plan.maxDepth, 3);
});

test('zoomed to a node: its ancestors span the width, its subtree scales, others are culled', () => {
  const b = nodeNamed(t, 'B');
  const plan = new FramePlan();
  planFrame(t, layout, vp({ start: layout.x[b], end: layout.x[b] + t.total[b] }), 0.5, plan);
  const drawn = Array.from(plan.node.subarray(0, plan.count), (n) => t.labels[t.label[n]]);
  assert.deepEqual(drawn, ['all', 'A', 'B', 'C']);
  assert.deepEqual(Array.from(plan.width.subarray(0, 4)), [1000, 1000, 1000, 250]);
  assert.deepEqual(Array.from(plan.left.subarray(0, 4)), [0, 0, 0, 0]);
});

test('rows beyond the canvas are not visited', () => {
  const plan = new FramePlan();
  planFrame(t, layout, vp({ height: 40 }), 0.5, plan);
  assert.ok(Array.from(plan.node.subarray(0, plan.count)).every((n) => t.depth[n] <= 1));
});

test('narrow neighbours merge into one run per row; an isolated sliver is left out', () => {
  // 1000 one-sample leaves under Wide, beside a big sibling: each leaf is 0.1 px at 200 px.
  const lines = ['x;Big 100000'];
  for (let i = 0; i < 1000; i++) lines.push(`x;Wide;L${String(i).padStart(4, '0')} 1`);
  lines.push('x;Tiny 1');
  const wide = tree(lines.join('\n'));
  const l = layoutTree(wide);
  const plan = new FramePlan();
  planFrame(wide, l, { start: 0, end: wide.total[0], width: 200, height: 200, rowHeight: 20, inverted: false }, 0.5, plan);
  const drawn = Array.from(plan.node.subarray(0, plan.count), (n) => (n === RUN ? 'run' : wide.labels[wide.label[n]]));
  assert.deepEqual(drawn, ['all', 'Big', 'Wide', 'run']);
  assert.equal(plan.depth[3], 2);
  const w = nodeNamed(wide, 'Wide');
  assert.ok(Math.abs(plan.width[3] - plan.width[2]) < 1e-3, 'the run covers what its leaves cover');
  assert.ok(Math.abs(plan.left[3] - plan.left[2]) < 1e-3);
  assert.equal(l.x[w] > 0, true);
});

test('items of a row come left to right, runs included, so gaps are found in one pass', () => {
  // Slivers, then a wide frame, then slivers again, on one row.
  const lines = [];
  for (let i = 0; i < 50; i++) lines.push(`x;R;A${String(i).padStart(2, '0')} 1`);
  lines.push('x;R;M 400');
  for (let i = 0; i < 50; i++) lines.push(`x;R;Z${String(i).padStart(2, '0')} 1`);
  const t3 = tree(lines.join('\n'));
  const plan = new FramePlan();
  planFrame(t3, layoutTree(t3), { start: 0, end: t3.total[0], width: 200, height: 100, rowHeight: 20, inverted: false }, 0.5, plan);
  const row2 = Array.from({ length: plan.count }, (_, k) => k).filter((k) => plan.depth[k] === 2);
  assert.deepEqual(row2.map((k) => (plan.node[k] === RUN ? 'run' : t3.labels[t3.label[plan.node[k]]])), ['run', 'M', 'run']);
  for (let j = 1; j < row2.length; j++) assert.ok(plan.left[row2[j]] >= plan.left[row2[j - 1]] + plan.width[row2[j - 1]] - 1e-3);
});

test('hit testing maps a point to the node drawn there, in both orientations and zoomed', () => {
  assert.equal(nodeAt(t, layout, vp(), 10, 185, 0.5), 0);
  assert.equal(nodeAt(t, layout, vp(), 10, 165, 0.5), nodeNamed(t, 'A'));
  assert.equal(nodeAt(t, layout, vp(), 650, 145, 0.5), nodeNamed(t, 'B', 1));
  assert.equal(nodeAt(t, layout, vp(), 950, 145, 0.5), -1, 'E has self time there: no child');
  assert.equal(nodeAt(t, layout, vp(), 10, 105, 0.5), -1, 'above the deepest frame');
  assert.equal(nodeAt(t, layout, vp({ inverted: true }), 10, 45, 0.5), nodeNamed(t, 'B'));
  const b = nodeNamed(t, 'B');
  const zoomed = vp({ start: layout.x[b], end: layout.x[b] + t.total[b] });
  assert.equal(nodeAt(t, layout, zoomed, 900, 165, 0.5), nodeNamed(t, 'A'), 'an ancestor spans the width');
  assert.equal(nodeAt(t, layout, zoomed, 200, 125, 0.5), nodeNamed(t, 'C'));
  assert.equal(nodeAt(t, layout, zoomed, 300, 125, 0.5), -1);
  assert.equal(nodeAt(t, layout, vp({ width: 10 }), 9.99, 125, 0.5), -1, 'C is 1 px: drawn');
});

test('search: share counts each matching subtree once, nested matches add nothing', () => {
  const r = searchTree(t, layout, 'b');
  // B under A (40) and B under E (25); no nesting.
  assert.equal(r.matchedValue, 65);
  assert.equal(r.share, 0.65);
  assert.equal(r.matchCount, 2);
  const nested = tree('x;F;G;F 10\nx;F 5\nx;H 5');
  const n = searchTree(nested, layoutTree(nested), /^F$/);
  assert.equal(n.matchCount, 2);
  assert.equal(n.matchedValue, 15);
  assert.equal(n.share, 0.75);
  const g = /f|h/gi;
  assert.equal(searchTree(nested, layoutTree(nested), g).matchedValue, 20);
  assert.equal(searchTree(nested, layoutTree(nested), g).matchedValue, 20, 'a /g pattern gives the same answer twice');
  assert.equal(searchTree(t, layout, '').matchCount, 0);
  assert.equal(searchTree(t, layout, 'all').matchCount, 0, 'the root is not a frame');
});

test('parseSearch: /re/flags is a RegExp, an invalid one is literal text, blank is none', () => {
  assert.deepEqual(parseSearch('/Order\\.(Lock|Wait)/i'), /Order\.(Lock|Wait)/i);
  assert.equal(parseSearch('/(/'), '/(/');
  assert.equal(parseSearch('  Hot '), 'Hot');
  assert.equal(parseSearch('  '), null);
});

test('fitLabel: whole when it fits, cut with an ellipsis, empty when nothing fits', () => {
  assert.equal(fitLabel('Namespace.Type.Method', 126, 130, 6), 'Namespace.Type.Method');
  assert.equal(fitLabel('Namespace.Type.Method', 126, 60, 6), 'Namespac…', '6 px a character, 5% kept spare');
  assert.equal(fitLabel('Namespace.Type.Method', 126, 8, 6), '');
});

test('an inverted tree lays out like any other; its leaves sit on row 1', () => {
  const inv = tree('x;A;B 3\nx;C;B 2', true);
  const l = layoutTree(inv);
  assert.equal(inv.labels[inv.label[1]], 'B');
  assert.equal(l.maxDepth, 2);
  assert.equal(nodeAt(inv, l, { start: 0, end: 5, width: 100, height: 60, rowHeight: 20, inverted: true }, 10, 30, 0.5), 1);
});
