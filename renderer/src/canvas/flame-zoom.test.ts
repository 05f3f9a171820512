import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { buildFlameTree } from '../worker/flame-tree.js';
import type { FlatTree } from '../worker/protocol.js';
import { parallelTreeFrom } from '../state/test-trees.test-support.js';
import { layoutTree } from './flame-layout.js';
import { NOT_ZOOMED, labelPath, sameZoom, zoomAfterClick, zoomedNode } from './flame-zoom.js';

function tree(text: string): FlatTree {
  return buildFlameTree(recordingFromStream([streamFromCollapsed(text)]), { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false });
}

const nodeNamed = (t: FlatTree, name: string, nth = 0): number => {
  const all = Array.from({ length: t.nodeCount }, (_, i) => i).filter((i) => t.labels[t.label[i]] === name);
  return all[nth] ?? -1;
};

const shown = (t: FlatTree, path: readonly string[]): number => zoomedNode(t, layoutTree(t).end, path);

// all = A (B (C), D) + E (B)
const t = tree('x;A;B;C 10\nx;A;B 30\nx;A;D 20\nx;E 15\nx;E;B 25');

test('a zoom is the path of labels from below the root to the frame', () => {
  assert.deepEqual(labelPath(t, nodeNamed(t, 'C')), ['A', 'B', 'C']);
  assert.deepEqual(labelPath(t, nodeNamed(t, 'B', 1)), ['E', 'B']);
  assert.deepEqual(labelPath(t, 0), []);
  assert.deepEqual(labelPath(t, t.nodeCount), [], 'a node the tree does not have');
  assert.equal(shown(t, labelPath(t, nodeNamed(t, 'B', 1))), nodeNamed(t, 'B', 1), 'the same label under another parent is another frame');
});

test('a live update finds the zoomed frame again at its new index', () => {
  const next = tree('x;9init 5\nx;A;B;C 7\nx;A;B 1');
  assert.notEqual(nodeNamed(next, 'C'), nodeNamed(t, 'C'));
  assert.equal(shown(next, ['A', 'B', 'C']), nodeNamed(next, 'C'));
  assert.equal(shown(next, NOT_ZOOMED), 0);
});

test('the zoomed frame gone after a live update: the deepest frame of its path still there, the root when none is', () => {
  const next = tree('x;A;B 5\nx;E 3');
  assert.equal(shown(next, ['A', 'B', 'C']), nodeNamed(next, 'B'), 'C is gone: B');
  assert.equal(shown(next, ['A', 'D']), nodeNamed(next, 'A'), 'D is gone: A');
  assert.equal(shown(next, ['E', 'B']), nodeNamed(next, 'E'), 'E lost its B: E, not the B under A');
  assert.equal(shown(next, ['Q', 'A']), 0, 'nothing of the path left: the root');
  const empty = tree('');
  assert.equal(shown(empty, ['A']), 0, 'an empty tree');
});

test('a click zooms to the frame, the root zooms out, empty space changes nothing', () => {
  assert.deepEqual(zoomAfterClick(t, nodeNamed(t, 'D')), ['A', 'D']);
  assert.equal(zoomAfterClick(t, 0), NOT_ZOOMED);
  assert.equal(zoomAfterClick(t, -1), null);
  assert.equal(zoomAfterClick(null, 3), null);
  assert.ok(sameZoom(['A', 'B'], ['A', 'B']));
  assert.ok(!sameZoom(['A', 'B'], ['A']));
  assert.ok(!sameZoom(['A', 'B'], ['A', 'C']));
});

test('the same rule in a rebuilt tree of another builder (parallel stacks)', () => {
  const a = parallelTreeFrom('x;y;z 1\nx;w 2');
  const z = shown(a, ['x', 'y', 'z']);
  assert.deepEqual(labelPath(a, z), ['x', 'y', 'z']);
  const b = parallelTreeFrom('x;w 5\nq 1\nx;y;z 3');
  assert.equal(b.labels[b.label[shown(b, ['x', 'y', 'z'])]], 'z');
  assert.equal(shown(b, ['x', 'nope']), nodeNamed(b, 'x'), 'the deepest frame of the path still there (nodeAtPath said -1 here)');
  assert.equal(shown(b, []), 0);
});
