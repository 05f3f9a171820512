import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stackBlocks, threadStack, type StackBlock } from './parallel-blocks.js';
import { parallelTreeFrom } from './test-trees.test-support.js';
import type { ParallelTree } from '../worker/protocol.js';

function show(tree: ParallelTree, blocks: StackBlock[], indent = ''): string {
  return blocks.map((b) => `${indent}${b.nodes.map((n) => tree.labels[tree.label[n]]).join(' > ')} [${b.threads.join(',')}]\n${show(tree, b.children, indent + '  ')}`).join('');
}

describe('stackBlocks', () => {
  it('collapses a shared trunk into one block and branches where stacks diverge', () => {
    const tree = parallelTreeFrom(`
      start;run;Wait;Enter 1 @3
      start;run;Wait;Enter 1 @4
      start;run;Wait;Enter 1 @5
      start;run;Hold;Sleep 1 @2
      main;Join 1 @1
    `);
    assert.equal(show(tree, stackBlocks(tree)), [
      'start > run [2,3,4,5]',
      '  Wait > Enter [3,4,5]',
      '  Hold > Sleep [2]',
      'main > Join [1]',
      '',
    ].join('\n'));
  });

  it('by operations: a chain splits where some of its operations sit, and the most operations come first', () => {
    const tree = { ...parallelTreeFrom(`
      [await] Main;[suspended] 1
      [await] Handler;[await] Service;[suspended];[awaiting Task.Delay] 3
      [await] Handler;[await] Service;Service+<X>d__1.MoveNext;Hot 1 @4
      [await] Handler 1
    `), by: 'operations' as const };
    assert.equal(show(tree, stackBlocks(tree)), [
      '[await] Handler [4]',
      '  [await] Service [4]',
      '    [suspended] > [awaiting Task.Delay] []',
      '    Service+<X>d__1.MoveNext > Hot [4]',
      '[await] Main > [suspended] []',
      '',
    ].join('\n'));
  });

  it('splits a chain where a thread stops', () => {
    const tree = parallelTreeFrom(`
      a;b 1 @1
      a;b;c;d 1 @2
    `);
    assert.equal(show(tree, stackBlocks(tree)), 'a > b [1,2]\n  c > d [2]\n');
  });

  it('gives a thread its own full stack', () => {
    const tree = parallelTreeFrom(`
      start;run;Wait;Enter 1 @3
      start;run;Hold;Sleep 1 @2
    `);
    assert.deepEqual(threadStack(tree, 2).map((n) => tree.labels[tree.label[n]]), ['start', 'run', 'Hold', 'Sleep']);
    assert.deepEqual(threadStack(tree, 9), []);
  });
});
