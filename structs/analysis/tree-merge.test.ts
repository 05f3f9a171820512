import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireEncoder } from '../wire/encoder.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { FunctionKind } from '../wire/records.js';
import { streamFromCollapsed } from '../formats/collapsed/collapsed-stream.js';
import { flatTreeProblems, flatTreeToCollapsed } from './flat-tree-text.js';
import { LabelTable } from './label-table.js';
import { MergeKeys, mergeKeys } from './tree-merge.js';

test('a path that is a prefix of another becomes its ancestor; end nodes are reported per key', () => {
  const rec = recordingFromStream([streamFromCollapsed('t;A 1\nt;A;B 2\nt;A;B;C 3\nt;D 4')]);
  const labels = new LabelTable(rec);
  const keys = new MergeKeys();
  // Stack ids follow first appearance: 0 = A, 1 = A;B, 2 = A;B;C, 3 = D. Added out of order.
  for (const s of [2, 3, 0, 1]) keys.add(s, -1, s + 1);
  const { tree, endNode } = mergeKeys(rec, labels, keys, false, 4);
  assert.deepEqual(flatTreeProblems(tree), []);
  assert.deepEqual(Array.from(tree.label, (l) => tree.labels[l]), ['all', 'A', 'B', 'C', 'D']);
  assert.deepEqual(Array.from(endNode), [3, 4, 1, 2]);
  assert.deepEqual(Array.from(tree.self), [0, 1, 2, 3, 4]);
  assert.deepEqual(Array.from(tree.total), [10, 6, 5, 3, 4]);
});

test('prefix labels group paths; the same stack under two prefixes makes two subtrees', () => {
  const rec = recordingFromStream([streamFromCollapsed('t;A;B 1\nu;A;C 1')]);
  const labels = new LabelTable(rec);
  const t = labels.ofThread(1);
  const u = labels.ofThread(2);
  const keys = new MergeKeys();
  keys.add(0, u, 5);
  keys.add(1, t, 6);
  keys.add(0, t, 7);
  const { tree } = mergeKeys(rec, labels, keys, false, 3);
  assert.deepEqual(flatTreeProblems(tree), []);
  assert.equal(flatTreeToCollapsed(tree), 't;A;B 7\nt;A;C 6\nu;A;B 5\n');
});

test('different functions with the same label text merge into one node', () => {
  const enc = new WireEncoder().preamble().hello({ pid: 1, flags: 3, mono: 1, unixNs: 1n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' });
  enc.thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 1, name: 't' });
  enc.function({ functionId: 1, kind: FunctionKind.Managed, name: 'Main', module: 'a.dll', file: '' });
  enc.function({ functionId: 2, kind: FunctionKind.Managed, name: 'Same', module: 'a.dll', file: '' });
  enc.function({ functionId: 3, kind: FunctionKind.Managed, name: 'Same', module: 'b.dll', file: '' });
  enc.function({ functionId: 4, kind: FunctionKind.Managed, name: 'Leaf', module: 'b.dll', file: '' });
  enc.sample({ mono: 2, threadId: 1, flags: 1, cpuNs: 3, wallNs: 0, frames: [4, 2, 1] });
  enc.sample({ mono: 3, threadId: 1, flags: 1, cpuNs: 4, wallNs: 0, frames: [4, 3, 1] });
  enc.sample({ mono: 4, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [2, 1] });
  const rec = recordingFromStream([enc.bytes()]);
  const keys = new MergeKeys();
  for (let s = 0; s < rec.stackCount; s++) keys.add(s, -1, 1);
  const { tree } = mergeKeys(rec, new LabelTable(rec), keys, false, 3);
  assert.deepEqual(flatTreeProblems(tree), []);
  assert.equal(flatTreeToCollapsed(tree), 'Main;Same 1\nMain;Same;Leaf 2\n');
});

test('deep paths (300 frames) and many keys', () => {
  const deep = Array.from({ length: 300 }, (_, i) => `F${i % 7}`).join(';');
  const lines = [`t;${deep} 1`, `t;${deep};X 2`];
  for (let i = 0; i < 500; i++) lines.push(`t;R;K${i} 1`);
  const rec = recordingFromStream([streamFromCollapsed(lines.join('\n'))]);
  const keys = new MergeKeys();
  for (let s = 0; s < rec.stackCount; s++) keys.add(s, -1, 1);
  const { tree } = mergeKeys(rec, new LabelTable(rec), keys, false, keys.count);
  assert.deepEqual(flatTreeProblems(tree), []);
  assert.equal(tree.nodeCount, 1 + 301 + 1 + 500);
  assert.equal(Math.max(...tree.depth), 301);
  assert.equal(tree.totalValue, 502);
});

test('no keys: a lone root', () => {
  const rec = recordingFromStream([streamFromCollapsed('')]);
  const { tree, endNode } = mergeKeys(rec, new LabelTable(rec), new MergeKeys(), false, 0);
  assert.equal(tree.nodeCount, 1);
  assert.deepEqual(tree.labels, ['all']);
  assert.equal(endNode.length, 0);
});

test('random profiles: the tree holds exactly the summed input paths, grouped or not, in order', () => {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  for (let round = 0; round < 20; round++) {
    const lines: string[] = [];
    const expected = new Map<string, number>();
    const expectedGrouped = new Map<string, number>();
    const add = (m: Map<string, number>, k: string, v: number): void => { m.set(k, (m.get(k) ?? 0) + v); };
    for (let i = 0; i < 60; i++) {
      const frames = Array.from({ length: 1 + rand(6) }, () => `F${rand(5)}`);
      const thread = `T${rand(3)}`;
      const value = 1 + rand(9);
      lines.push(`${thread};${frames.join(';')} ${value}`);
      add(expected, frames.join(';'), value);
      add(expectedGrouped, `${thread};${frames.join(';')}`, value);
    }
    const text = (m: Map<string, number>): string => [...m].map(([k, v]) => `${k} ${v}`).sort().map((l) => `${l}\n`).join('');
    const rec = recordingFromStream([streamFromCollapsed(lines.join('\n'))]);
    const plain = new MergeKeys();
    const grouped = new MergeKeys();
    const labels = new LabelTable(rec);
    rec.forEachSample((_i, _mono, threadId, stackId, cpuNs) => {
      plain.add(stackId, -1, cpuNs);
      grouped.add(stackId, labels.ofThread(threadId), cpuNs);
    });
    for (const [keys, want] of [[plain, expected], [grouped, expectedGrouped]] as const) {
      const { tree } = mergeKeys(rec, labels, keys, false, keys.count);
      assert.deepEqual(flatTreeProblems(tree), []);
      assert.equal(flatTreeToCollapsed(tree), text(want));
    }
  }
});
