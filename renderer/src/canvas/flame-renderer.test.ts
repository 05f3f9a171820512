import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { buildFlameTree } from '../worker/flame-tree.js';
import type { FlatTree } from '../worker/protocol.js';
import { FlameRenderer } from './flame-renderer.js';

/** A canvas whose 2D context records what is drawn: enough of the DOM for the renderer in node. */
interface Rect { x: number; y: number; w: number; h: number; fill: string }

function fakeCanvas(): { canvas: HTMLCanvasElement; rects: Rect[]; texts: { text: string; x: number; y: number }[] } {
  const rects: Rect[] = [];
  const texts: { text: string; x: number; y: number }[] = [];
  const ctx = {
    fillStyle: '', strokeStyle: '', lineWidth: 1, font: '', textBaseline: '', textAlign: '',
    setTransform: () => undefined,
    fillRect(x: number, y: number, w: number, h: number) { rects.push({ x, y, w, h, fill: this.fillStyle }); },
    strokeRect: () => undefined,
    // 6 px per character, like a small monospace font.
    measureText: (text: string) => ({ width: 6 * text.length }),
    fillText: (text: string, x: number, y: number) => { texts.push({ text, x, y }); },
  };
  const canvas = { width: 0, height: 0, clientWidth: 600, clientHeight: 100, getContext: () => ctx };
  return { canvas: canvas as unknown as HTMLCanvasElement, rects, texts };
}

function tree(text: string): FlatTree {
  return buildFlameTree(recordingFromStream([streamFromCollapsed(text)]), { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false });
}

const BACKGROUND = '#ffffff';

/**
 * Device pixels of a width x height canvas the rectangles paint (what lies outside is clipped
 * away), checking that no two frames overlap and that background and frames overlap only in
 * rows painted whole first (rows of many frames).
 */
function paintedArea(rects: Rect[], width: number, height: number): number {
  const owner = new Map<number, string>();
  const wholeRows = new Set(rects.filter((r) => r.fill === BACKGROUND && r.x === 0 && r.w === width && r.h > 4).map((r) => r.y));
  for (const r of rects) {
    for (let y = Math.max(0, r.y); y < Math.min(height, r.y + r.h); y++) {
      for (let x = Math.max(0, r.x); x < Math.min(width, r.x + r.w); x++) {
        const key = y * 100_000 + x;
        const before = owner.get(key);
        if (before !== undefined) {
          const overdrawOk = before === BACKGROUND && r.fill !== BACKGROUND && wholeRows.has(r.y);
          assert.ok(overdrawOk, `pixel ${x},${y} painted twice (${before}, then ${r.fill})`);
        }
        owner.set(key, r.fill);
      }
    }
  }
  return owner.size;
}

const first = tree('t;Main;Work;Hot 60\nt;Main;Work;Cold 20\nt;Main;Idle 20');
const find = (t: FlatTree, name: string): number => Array.from(t.label).findIndex((l) => t.labels[l] === name);

test('draws every visible frame, sizes the backing store by devicePixelRatio, labels wide frames', () => {
  const { canvas, rects, texts } = fakeCanvas();
  const r = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
  r.resize(600, 100, 2);
  r.setTree(first);
  r.draw();
  assert.equal(canvas.width, 1200);
  assert.equal(canvas.height, 200);
  // One rectangle per frame, in device pixels (2 per CSS pixel); background only around them.
  const frames = rects.filter((r) => r.fill !== BACKGROUND);
  assert.equal(frames.length, first.nodeCount);
  // Root row at the bottom (flame): rows of 18 px from y = 100 - 18, a 1 px gap at the right.
  assert.ok(frames.some((r) => r.x === 0 && r.y === 2 * 82 && r.w === 2 * 599 && r.h === 2 * 17), JSON.stringify(frames));
  assert.ok(rects.every((r) => [r.x, r.y, r.w, r.h].every(Number.isInteger)), 'whole device pixels');
  assert.equal(paintedArea(rects, 1200, 200), 1200 * 200, 'every device pixel painted exactly once');
  assert.deepEqual(texts.map((t) => t.text).sort(), ['Cold', 'Hot', 'Idle', 'Main', 'Work', 'all']);
  assert.equal(r.contentHeight(), 4 * 18);
});

test('zoom, live update keeping the zoom by label path, reset', () => {
  const { canvas, rects } = fakeCanvas();
  const r = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
  r.setTree(first);
  r.zoomTo(find(first, 'Work'));
  r.draw();
  assert.equal(paintedArea(rects, 600, 100), 600 * 100, 'zoomed: every pixel painted once');
  // Work fills the width: Cold (20 of 80, first by name) the first quarter of row 3, Hot the rest.
  assert.equal(r.hit(10, 100 - 3 * 18 - 5), find(first, 'Cold'));
  assert.equal(r.hit(500, 100 - 3 * 18 - 5), find(first, 'Hot'));
  assert.equal(r.hit(500, 100 - 1 * 18 - 5), find(first, 'Main'), 'an ancestor spans the width');
  const next = tree('t;Alpha 50\nt;Main;Work;Cold 20\nt;Main;Work;Hot 20');
  r.setTree(next);
  assert.equal(r.zoomedNode, find(next, 'Work'));
  r.setTree(tree('t;Main;Other 5'));
  assert.equal(r.zoomedNode, 1, 'Work is gone: the deepest part of the path that exists (Main)');
  r.setTree(next);
  assert.equal(r.zoomedNode, find(next, 'Work'), 'the path comes back with the frame');
  r.resetZoom();
  assert.equal(r.zoomedNode, 0);
});

test('a zoom given by its owner as a path: with a tree, or on the shown one', () => {
  const { canvas } = fakeCanvas();
  const r = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
  r.setTree(first, { zoom: ['Main', 'Work', 'Gone'] });
  assert.equal(r.zoomedNode, find(first, 'Work'), 'the deepest frame of the path the tree has');
  assert.deepEqual(r.zoom, ['Main', 'Work', 'Gone'], 'the path is kept for later trees');
  r.zoomToPath(['Main', 'Idle']);
  assert.equal(r.zoomedNode, find(first, 'Idle'));
  r.setTree(first);
  assert.equal(r.zoomedNode, find(first, 'Idle'), 'a tree without a zoom keeps the one shown');
  r.setTree(first, { zoom: [] });
  assert.equal(r.zoomedNode, 0);
  r.zoomTo(find(first, 'Hot'));
  assert.deepEqual(r.zoom, ['Main', 'Work', 'Hot']);
});

test('icicle, slivers merged into runs, rows cut at the canvas edge, odd DPR: every pixel painted once', () => {
  const lines = ['t;Big;Deep;Deeper;Deepest;D5;D6;D7 500'];
  for (let i = 0; i < 300; i++) lines.push(`t;Many;S${String(i).padStart(3, '0')} 1`);
  const slivers = buildFlameTree(recordingFromStream([streamFromCollapsed(lines.join('\n'))]), { metric: 'cpu', threadIds: null, inverted: true, groupByThread: false });
  for (const inverted of [true, false]) {
    const { canvas, rects } = fakeCanvas();
    const r = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
    r.resize(301, 100, 1.25);
    r.setTree(slivers, { inverted });
    r.draw();
    assert.equal(paintedArea(rects, canvas.width, canvas.height), canvas.width * canvas.height, `inverted=${inverted}`);
  }
});

test('a row of many frames gets one background fill under them; coverage stays whole', () => {
  const lines = [];
  for (let i = 0; i < 40; i++) lines.push(`t;Root;F${String(i).padStart(2, '0')} 10`);
  const many = tree(lines.join('\n'));
  const { canvas, rects } = fakeCanvas();
  const r = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
  r.resize(800, 100, 1);
  r.setTree(many);
  r.draw();
  assert.equal(paintedArea(rects, 800, 100), 800 * 100);
  assert.equal(rects.filter((x) => x.fill !== BACKGROUND).length, many.nodeCount);
  assert.ok(rects.some((x) => x.fill === BACKGROUND && x.x === 0 && x.w === 800 && x.y === 100 - 3 * 18), 'row 2 painted whole');
});

test('tooltip: self, total and percentages of the whole and of the parent', () => {
  const { canvas } = fakeCanvas();
  const r = new FlameRenderer(canvas);
  r.setTree(first);
  assert.deepEqual(r.tooltip(find(first, 'Hot')), {
    node: find(first, 'Hot'), label: 'Hot', kind: 0, depth: 3, self: 60, total: 60, percentOfTotal: 60, percentOfParent: 75,
  });
  assert.equal(r.tooltip(0)?.percentOfParent, 100);
  assert.equal(r.tooltip(-1), null);
  assert.equal(r.tooltip(first.nodeCount), null);
});

test('search: share of matching subtrees, re-applied to the next tree, cleared by null', () => {
  const { canvas } = fakeCanvas();
  const r = new FlameRenderer(canvas);
  r.setTree(first);
  assert.deepEqual(r.search(/^(Work|Hot)$/), { matchedValue: 80, share: 0.8, matchCount: 2 });
  assert.deepEqual(r.search('idle'), { matchedValue: 20, share: 0.2, matchCount: 1 });
  r.setTree(tree('t;Main;Idle 10\nt;Main 30'));
  assert.deepEqual(r.search('idle'), { matchedValue: 10, share: 0.25, matchCount: 1 });
  assert.deepEqual(r.search(null), { matchedValue: 0, share: 0, matchCount: 0 });
});

test('an empty tree draws nothing and hits nothing', () => {
  const { canvas, rects } = fakeCanvas();
  const r = new FlameRenderer(canvas);
  r.setTree(tree(''));
  r.draw();
  assert.equal(rects.length, 1, 'only the background');
  assert.equal(rects[0].fill, BACKGROUND);
  assert.equal(r.hit(10, 90), -1);
});
