import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { streamFromCollapsed, type CollapsedStreamOptions } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { flatTreeProblems, flatTreeToCollapsed } from '../../../structs/analysis/flat-tree-text.js';
import { buildParallelTree } from './parallel-stacks.js';
import type { ParallelQuery, ParallelTree } from './protocol.js';

function parallel(text: string, query: ParallelQuery, options: CollapsedStreamOptions = {}): ParallelTree {
  const tree = buildParallelTree(recordingFromStream([streamFromCollapsed(text, options)]), query);
  assert.deepEqual(flatTreeProblems(tree), []);
  assert.equal(tree.threads.length, tree.nodeCount);
  return tree;
}

/** "label [threads] total" per node in preorder, indented by depth: easy to read in a diff. */
function outline(tree: ParallelTree): string[] {
  return Array.from({ length: tree.nodeCount }, (_, i) =>
    `${'  '.repeat(tree.depth[i])}${tree.labels[tree.label[i]]} [${tree.threads[i].join(',')}] ${tree.total[i]}`);
}

// Three threads blocked on the same lock, one busy elsewhere. Earlier samples of each thread
// were somewhere else, so 'current' must take only the latest one.
const blocked = `
  w1;Main;Run;Compute 1 @1
  w2;Main;Run;Compute 1 @1
  w3;Main;Run;Compute 1 @1
  busy;Main;Spin 1 @1
  w1;Main;Run;Order.Lock;Monitor.Enter;libc.so.6!futex_wait 1 @5
  w2;Main;Run;Order.Lock;Monitor.Enter;libc.so.6!futex_wait 1 @6
  busy;Main;Spin;Hash 1 @6
  w3;Main;Run;Order.Lock;Monitor.Enter;libc.so.6!futex_wait 1 @7
`;

test('current: three threads blocked in the same method merge under one trunk with their ids', () => {
  const tree = parallel(blocked, { mode: 'current' });
  // Threads by appearance: w1 1, w2 2, w3 3, busy 4.
  assert.deepEqual(outline(tree), [
    'all [1,2,3,4] 4',
    '  Main [1,2,3,4] 4',
    '    Run [1,2,3] 3',
    '      Order.Lock [1,2,3] 3',
    '        Monitor.Enter [1,2,3] 3',
    '          libc.so.6!futex_wait [1,2,3] 3',
    '    Spin [4] 1',
    '      Hash [4] 1',
  ]);
  assert.equal(tree.sampleCount, 4);
});

test('current: a thread that ended is left out', () => {
  const tree = parallel(blocked, { mode: 'current' }, { endedThreads: ['busy', 'w2'] });
  assert.deepEqual(outline(tree), [
    'all [1,3] 2',
    '  Main [1,3] 2',
    '    Run [1,3] 2',
    '      Order.Lock [1,3] 2',
    '        Monitor.Enter [1,3] 2',
    '          libc.so.6!futex_wait [1,3] 2',
  ]);
});

test('current with toMs: each thread as it was at that moment', () => {
  const tree = parallel(blocked, { mode: 'current', toMs: 5.5 });
  assert.equal(flatTreeToCollapsed(tree), [
    'Main;Run;Compute 2',
    'Main;Run;Order.Lock;Monitor.Enter;libc.so.6!futex_wait 1',
    'Main;Spin 1',
    '',
  ].join('\n'));
  assert.deepEqual(tree.threads[0], [1, 2, 3, 4]);
});

test('window: every sample counts, a node lists the threads with samples through it', () => {
  const tree = parallel(blocked, { mode: 'window' });
  assert.deepEqual(outline(tree), [
    'all [1,2,3,4] 8',
    '  Main [1,2,3,4] 8',
    '    Run [1,2,3] 6',
    '      Compute [1,2,3] 3',
    '      Order.Lock [1,2,3] 3',
    '        Monitor.Enter [1,2,3] 3',
    '          libc.so.6!futex_wait [1,2,3] 3',
    '    Spin [4] 2',
    '      Hash [4] 1',
  ]);
  const late = parallel(blocked, { mode: 'window', fromMs: 6 });
  assert.equal(flatTreeToCollapsed(late), [
    'Main;Run;Order.Lock;Monitor.Enter;libc.so.6!futex_wait 2',
    'Main;Spin;Hash 1',
    '',
  ].join('\n'));
  assert.deepEqual(late.threads[0], [2, 3, 4]);
});

test('window: a thread with several stacks through one node is listed once; recursion keeps one id per node', () => {
  const tree = parallel(`
    a;Main;X 1
    a;Main;Y 1
    b;Main;X;X 1
    a;Main;X 1
  `, { mode: 'window' });
  assert.deepEqual(outline(tree), [
    'all [1,2] 4',
    '  Main [1,2] 4',
    '    X [1,2] 3',
    '      X [2] 1',
    '    Y [1] 1',
  ]);
});

test('no samples: a lone root with no threads', () => {
  const tree = parallel('', { mode: 'current' });
  assert.deepEqual(outline(tree), ['all [] 0']);
});
