import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parallelTreeFrom } from '../state/test-trees.test-support.js';
import { childrenOf, matchedFrames, moveFrom, nextMatch } from './flame-keys.js';

// Preorder: 0 all, 1 Main, 2 Work, 3 Hot, 4 Cold, 5 Idle, 6 Hot (under Idle).
const tree = parallelTreeFrom('Main;Work;Hot 60\nMain;Work;Cold 20\nMain;Idle;Hot 30');
const name = (n: number): string => tree.labels[tree.label[n]];

test('keys move the zoom: in to the widest callee, out to the caller, across to the frames beside', () => {
  assert.deepEqual(childrenOf(tree, 1).map(name), ['Work', 'Idle']);
  assert.equal(name(moveFrom(tree, 0, 'in')), 'Main');
  assert.equal(name(moveFrom(tree, 1, 'in')), 'Work', 'Work (80) is wider than Idle (30)');
  const work = moveFrom(tree, 1, 'in');
  assert.equal(name(moveFrom(tree, work, 'next')), 'Idle');
  assert.equal(moveFrom(tree, work, 'previous'), work, 'nothing before the first');
  assert.equal(moveFrom(tree, work, 'out'), 1);
  assert.equal(moveFrom(tree, 0, 'out'), 0);
  const hot = moveFrom(tree, work, 'in');
  assert.equal(name(hot), 'Hot');
  assert.equal(moveFrom(tree, hot, 'in'), hot, 'a leaf stays');
});

test('next match: outermost matches in order, wrapping around', () => {
  const matched = matchedFrames(tree, (l) => l === 'Hot' || l === 'Work');
  assert.deepEqual(matched.map(name), ['Work', 'Hot'], 'Hot under Work is inside the Work match');
  assert.equal(name(nextMatch(matched, 0, 1)), 'Work');
  assert.equal(name(nextMatch(matched, matched[0], 1)), 'Hot');
  assert.equal(name(nextMatch(matched, matched[1], 1)), 'Work');
  assert.equal(name(nextMatch(matched, matched[0], -1)), 'Hot');
  assert.equal(nextMatch([], 0, 1), -1);
});
