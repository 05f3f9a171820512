import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fromNettrace } from '../../../structs/formats/nettrace/nettrace-reader.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import { MergeKeys, mergeKeys } from '../../../structs/analysis/tree-merge.js';
import type { FlatTree } from '../../../structs/analysis/flat-tree.js';
import { TreeReuse } from './tree-reuse.js';

// A real .NET program's recording (dotnet-trace of test/targets' CPU-ratio program).
const rec = fromNettrace(gunzipSync(readFileSync(new URL('../../../../../structs/formats/nettrace/fixtures/dotnet-trace-cpu-ratio.nettrace.gz', import.meta.url))));

function keysOf(scale: (stack: number) => number, prefixOf: (stack: number) => number): MergeKeys {
  const keys = new MergeKeys();
  for (let s = 0; s < rec.stackCount; s++) keys.add(s, prefixOf(s), scale(s));
  return keys;
}

const plain = (t: FlatTree): unknown => ({ ...t, label: Array.from(t.label), parent: Array.from(t.parent), depth: Array.from(t.depth), total: Array.from(t.total), self: Array.from(t.self), labelKind: Array.from(t.labelKind) });

test('a tree with the same keys is filled into the kept shape and equals a fresh merge', () => {
  const labels = new LabelTable(rec);
  const threadLabel = labels.ofThread(rec.threads()[0].id);
  for (const [inverted, prefixOf] of [[false, () => -1], [true, () => -1], [false, (s: number) => (s % 2 === 0 ? threadLabel : -1)]] as const) {
    const reuse = new TreeReuse();
    const first = reuse.merge('a', rec, labels, keysOf((s) => 1000 + s, prefixOf), inverted, 10);
    assert.equal(reuse.reused, 0);
    assert.deepEqual(plain(first), plain(mergeKeys(rec, labels, keysOf((s) => 1000 + s, prefixOf), inverted, 10).tree));
    // Larger values, fractions too: the fill adds them in the merge's order, so equal bit for bit.
    const grown = (s: number): number => 1000 + s * 3.7 + 0.1;
    const second = reuse.merge('a', rec, labels, keysOf(grown, prefixOf), inverted, 20);
    assert.equal(reuse.reused, 1);
    assert.deepEqual(plain(second), plain(mergeKeys(rec, labels, keysOf(grown, prefixOf), inverted, 20).tree));
  }
});

test('a new key, another prefix or another orientation merges anew', () => {
  const labels = new LabelTable(rec);
  const reuse = new TreeReuse();
  const some = new MergeKeys();
  for (let s = 0; s < rec.stackCount - 1; s++) some.add(s, -1, 5);
  reuse.merge('a', rec, labels, some, false, 1);
  const more = keysOf(() => 5, () => -1);
  const tree = reuse.merge('a', rec, labels, more, false, 1);
  assert.equal(reuse.reused, 0);
  assert.deepEqual(plain(tree), plain(mergeKeys(rec, labels, keysOf(() => 5, () => -1), false, 1).tree));
  reuse.merge('a', rec, labels, keysOf(() => 5, () => -1), true, 1);
  assert.equal(reuse.reused, 0);
  const grouped = keysOf(() => 5, () => labels.ofThread(rec.threads()[1].id));
  const groupedTree = reuse.merge('a', rec, labels, grouped, true, 1);
  assert.equal(reuse.reused, 0);
  assert.notEqual(groupedTree.nodeCount, tree.nodeCount);
  // The kept shape's arrays are its own: the reply's transferred (detached) arrays do not empty it.
  const expected = plain(groupedTree);
  structuredClone(groupedTree, { transfer: [groupedTree.label.buffer, groupedTree.parent.buffer, groupedTree.depth.buffer, groupedTree.total.buffer, groupedTree.self.buffer, groupedTree.labelKind.buffer] as ArrayBuffer[] });
  assert.equal(groupedTree.label.length, 0);
  const again = reuse.merge('a', rec, labels, keysOf(() => 5, () => labels.ofThread(rec.threads()[1].id)), true, 1);
  assert.equal(reuse.reused, 1);
  assert.deepEqual(plain(again), expected);
});
