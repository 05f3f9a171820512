import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { FIXTURE_START_MONO, fixtureEncoder, fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { EventKind } from '../../../structs/wire/records.js';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { COLLAPSED_UNIX_NS, streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { flatTreeProblems, flatTreeToCollapsed } from '../../../structs/analysis/flat-tree-text.js';
import { buildFlameTree } from './flame-tree.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import type { FlameQuery, FlatTree } from './protocol.js';

const all: FlameQuery = { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false };

function rec(text: string): Recording {
  return recordingFromStream([streamFromCollapsed(text)]);
}

function flame(r: Recording, query: Partial<FlameQuery> = {}): FlatTree {
  const tree = buildFlameTree(r, { ...all, ...query });
  assert.deepEqual(flatTreeProblems(tree), []);
  return tree;
}

const text = (lines: string[]): string => lines.map((l) => `${l}\n`).join('');

const basic = rec(`
  main;Main;Work;Hot 10 @1
  main;Main;Work;Hot 20 @2
  main;Main;Work;Cold 5 @3
  worker;Main;Work;Hot 7 @4
  worker;Start;libc.so.6!futex_wait 3 @5
  main;Main 2 @6
`);

test('equal stacks merge; self and total per node; collapsed text out equals text in', () => {
  const tree = flame(basic);
  assert.equal(flatTreeToCollapsed(tree), text([
    'Main 2',
    'Main;Work;Cold 5',
    'Main;Work;Hot 37',
    'Start;libc.so.6!futex_wait 3',
  ]));
  assert.equal(tree.totalValue, 47);
  assert.equal(tree.sampleCount, 6);
  assert.equal(tree.labels[tree.label[0]], 'all');
  // Preorder with children by name: all, Main, Work, Cold, Hot, Start, futex.
  assert.deepEqual(Array.from(tree.label, (l) => tree.labels[l]), ['all', 'Main', 'Work', 'Cold', 'Hot', 'Start', 'libc.so.6!futex_wait']);
  assert.deepEqual(Array.from(tree.depth), [0, 1, 2, 3, 3, 1, 2]);
  assert.deepEqual(Array.from(tree.total), [47, 44, 42, 5, 37, 3, 3]);
  assert.deepEqual(Array.from(tree.self), [0, 2, 0, 5, 37, 0, 3]);
  const kinds = Object.fromEntries(tree.labels.map((l, i) => [l, tree.labelKind[i]]));
  assert.deepEqual(kinds, { all: 2, Main: 0, Work: 0, Cold: 0, Hot: 0, Start: 0, 'libc.so.6!futex_wait': 1 });
});

test('the merge agrees with to-collapsed.ts on the shared fixture (cpu and wall, grouped or not)', () => {
  const fixture = recordingFromStream([fixtureStream()]);
  for (const metric of ['cpu', 'wall'] as const) {
    for (const groupByThread of [false, true]) {
      const expected = toCollapsed(fixture, { metric, groupByThread }).replace(/a_b/g, 'a;b');
      assert.equal(flatTreeToCollapsed(flame(fixture, { metric, groupByThread })), expected, `${metric} grouped=${groupByThread}`);
    }
  }
});

test('wall metric uses wall ns and leaves out samples with no wall time', () => {
  const r = rec(`
    t;A;B 10 wall=0
    t;A;C 0 wall=50
    t;A 4
  `);
  assert.equal(flatTreeToCollapsed(flame(r, { metric: 'wall' })), text(['A 4', 'A;C 50']));
  const cpu = flame(r, { metric: 'cpu' });
  assert.equal(flatTreeToCollapsed(cpu), text(['A 4', 'A;B 10']));
  assert.equal(cpu.sampleCount, 2);
});

test('time window: from inclusive, to exclusive, in ms after HELLO', () => {
  assert.equal(flatTreeToCollapsed(flame(basic, { fromMs: 2, toMs: 4 })), text(['Main;Work;Cold 5', 'Main;Work;Hot 20']));
  assert.equal(flatTreeToCollapsed(flame(basic, { fromMs: 4.5 })), text(['Main 2', 'Start;libc.so.6!futex_wait 3']));
  assert.equal(flatTreeToCollapsed(flame(basic, { toMs: 1.5 })), text(['Main;Work;Hot 10']));
  const empty = flame(basic, { fromMs: 100 });
  assert.equal(empty.nodeCount, 1);
  assert.equal(empty.totalValue, 0);
  assert.equal(empty.sampleCount, 0);
});

test('the tree says when its newest sample was taken, on the calendar, among the samples it kept', () => {
  const unixMs = (ms: number): number => Number(COLLAPSED_UNIX_NS) / 1e6 + ms;
  assert.equal(flame(basic).newestSampleUnixMs, unixMs(6));
  assert.equal(flame(basic, { groupByThread: true }).newestSampleUnixMs, unixMs(6));
  assert.equal(flame(basic, { toMs: 4 }).newestSampleUnixMs, unixMs(3));
  assert.equal(flame(basic, { threadIds: [2], groupByThread: true }).newestSampleUnixMs, unixMs(5));
  assert.equal(flame(basic, { fromMs: 100 }).newestSampleUnixMs, undefined);
});

test('thread filter keeps only the listed wire thread ids', () => {
  // Threads are numbered in order of appearance: main 1, worker 2.
  assert.equal(flatTreeToCollapsed(flame(basic, { threadIds: [2] })), text(['Main;Work;Hot 7', 'Start;libc.so.6!futex_wait 3']));
  assert.equal(flatTreeToCollapsed(flame(basic, { threadIds: [1, 2] })), flatTreeToCollapsed(flame(basic)));
  assert.equal(flame(basic, { threadIds: [] }).nodeCount, 1);
  assert.equal(flame(basic, { threadIds: [99] }).nodeCount, 1);
});

test('inverted: leaves under the root, callers below them', () => {
  const tree = flame(basic, { inverted: true });
  assert.equal(flatTreeToCollapsed(tree), text([
    'Cold;Work;Main 5',
    'Hot;Work;Main 37',
    'Main 2',
    'libc.so.6!futex_wait;Start 3',
  ]));
  assert.equal(tree.totalValue, 47);
  // Every leaf's own time sits directly under the root.
  const hot = Array.from(tree.label).findIndex((l) => tree.labels[l] === 'Hot');
  assert.equal(tree.depth[hot], 1);
  assert.equal(tree.total[hot], 37);
});

test('groupByThread adds thread nodes under the root, with kind 3; combined with inverted and a filter', () => {
  const tree = flame(basic, { groupByThread: true });
  assert.equal(flatTreeToCollapsed(tree), text([
    'main;Main 2',
    'main;Main;Work;Cold 5',
    'main;Main;Work;Hot 30',
    'worker;Main;Work;Hot 7',
    'worker;Start;libc.so.6!futex_wait 3',
  ]));
  assert.equal(tree.labelKind[tree.label[1]], 3);
  assert.equal(tree.depth[1], 1);
  assert.equal(flatTreeToCollapsed(flame(basic, { groupByThread: true, inverted: true, threadIds: [2] })), text([
    'worker;Hot;Work;Main 7',
    'worker;libc.so.6!futex_wait;Start 3',
  ]));
});

test('recursion nests; incomplete and frameless samples get the [incomplete stack] root', () => {
  const r = rec(`
    t;A;A;A 3
    t 4
  `);
  assert.equal(flatTreeToCollapsed(flame(r)), text(['A;A;A 3', '[incomplete stack] 4']));
});

test('output does not depend on sample order, and a shared LabelTable gives the same trees', () => {
  const lines = ['t;Z;b 1', 't;Z;a 2', 't;A;q 3', 'u;Z;a 4', 'u;M 5'];
  const forward = rec(lines.join('\n'));
  const backward = rec([...lines].reverse().join('\n'));
  const f = flame(forward);
  const b = flame(backward);
  assert.deepEqual(Array.from(f.label, (l) => f.labels[l]), Array.from(b.label, (l) => b.labels[l]));
  assert.deepEqual(Array.from(f.total), Array.from(b.total));
  const labels = new LabelTable(forward);
  const first = buildFlameTree(forward, all, labels);
  const again = buildFlameTree(forward, { ...all, inverted: true }, labels);
  const third = buildFlameTree(forward, all, labels);
  assert.equal(flatTreeToCollapsed(first), flatTreeToCollapsed(third));
  assert.equal(flatTreeToCollapsed(again), flatTreeToCollapsed(flame(forward, { inverted: true })));
});

test('wide trees: children sorted by name whatever their count', () => {
  const lines = Array.from({ length: 200 }, (_, i) => `t;Root;F${(i * 7919) % 200} ${i + 1}`);
  const tree = flame(rec(lines.join('\n')));
  assert.equal(tree.nodeCount, 202);
  const names = Array.from(tree.label.subarray(2), (l) => tree.labels[l]);
  assert.deepEqual(names, [...names].sort());
});

test('a recording with no HELLO or no samples is a lone root', () => {
  const tree = flame(rec(''));
  assert.equal(tree.nodeCount, 1);
  assert.equal(tree.totalValue, 0);
});

test('an event type\'s tree sums its events per stack, by window and thread, and leaves out events without a stack', () => {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).stack(91, 0, [1]).string(1, 'System.Byte[]');
  const at = FIXTURE_START_MONO + 1_000_000;
  enc.event({ kind: EventKind.Allocation, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 10 });
  enc.event({ kind: EventKind.Allocation, mono: at + 5_000_000, threadId: 3, stackId: 91, labelId: 1, value1: 300, value2: 30 });
  enc.event({ kind: EventKind.Exception, mono: at, threadId: 0, stackId: 0, labelId: 1, value1: 4 });
  const r = recordingFromStream([enc.bytes().slice()]);
  assert.equal(flatTreeToCollapsed(flame(r, { metric: 'alloc-space' })), text(['App.Program.Main 300', 'App.Program.Main;App.Worker.Work;App.Worker.Hot 1000']));
  assert.equal(flatTreeToCollapsed(flame(r, { metric: 'alloc-objects', threadIds: [3] })), text(['App.Program.Main 30']));
  assert.equal(flatTreeToCollapsed(flame(r, { metric: 'alloc-space', toMs: 3 })), text(['App.Program.Main;App.Worker.Work;App.Worker.Hot 1000']));
  assert.equal(flame(r, { metric: 'exceptions' }).sampleCount, 0);
  assert.equal(flame(r, { metric: 'alloc-samples' }).sampleCount, 2);
});

test('an event type\'s tree focused on one type name (a row of the type table) keeps only that type\'s events', () => {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).stack(91, 0, [1]).string(1, 'System.Byte[]').string(2, 'App.Pair<System.Int64>');
  const at = FIXTURE_START_MONO + 1_000_000;
  enc.event({ kind: EventKind.Allocation, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 10 });
  enc.event({ kind: EventKind.Allocation, mono: at + 1, threadId: 1, stackId: 91, labelId: 2, value1: 300, value2: 30 });
  enc.event({ kind: EventKind.Allocation, mono: at + 2, threadId: 3, stackId: 91, labelId: 1, value1: 50, value2: 1 });
  const r = recordingFromStream([enc.bytes().slice()]);
  assert.equal(flatTreeToCollapsed(flame(r, { metric: 'alloc-space', eventType: 'System.Byte[]' })), text(['App.Program.Main 50', 'App.Program.Main;App.Worker.Work;App.Worker.Hot 1000']));
  assert.equal(flatTreeToCollapsed(flame(r, { metric: 'alloc-objects', eventType: 'App.Pair<System.Int64>' })), text(['App.Program.Main 30']));
  assert.equal(flame(r, { metric: 'alloc-space', eventType: 'No.Such.Type' }).sampleCount, 0);
  assert.equal(flame(r, { metric: 'alloc-space' }).sampleCount, 3);
});
