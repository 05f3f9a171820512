import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeapAnalysis } from './heap-analysis.js';
import { HeapSnapshotBuilder } from './heap-snapshot.js';

describe('DominatorTree', () => {
  // root → holder → 5 leaves of sizes 10..50; a second root → shared, also reached from holder.
  const b = new HeapSnapshotBuilder();
  const T = b.typeId('T');
  const holder = b.addNode(T, 8);
  const leaves = [10, 20, 30, 40, 50].map((s) => b.addNode(T, s));
  const shared = b.addNode(T, 1000);
  for (const l of leaves) b.addEdge(holder, l);
  b.addEdge(holder, shared);
  b.addRoot('static', 'static var A.x', holder);
  b.addRoot('handle', 'StrongHandle', shared);
  const analysis = new HeapAnalysis(b.build());
  const tree = analysis.dominatorTree();

  it('lists what roots alone keep alive under the super-root, the most retaining first', () => {
    assert.deepEqual([...tree.topChildren(-1, 10)], [shared, holder]);
    assert.equal(tree.childCount(-1), 2);
  });

  it('keeps only the best `limit` children, in order, when a node has more', () => {
    assert.equal(tree.childCount(holder), 5);
    assert.deepEqual([...tree.topChildren(holder, 3)], [leaves[4], leaves[3], leaves[2]]);
    assert.deepEqual([...tree.topChildren(holder, 10)], [...leaves].reverse());
  });
});
