import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffPaths, diffTypeStats, HeapAnalysis } from './heap-analysis.js';
import { HeapSnapshotBuilder } from './heap-snapshot.js';

/** A static cache (List → Item[] → n × Item → byte[]), a linked list of `chain` Nodes on a stack, one handle. */
function leaky(n: number, chain: number): HeapAnalysis {
  const b = new HeapSnapshotBuilder();
  const list = b.addNode(b.typeId('List<Item>'), 32);
  const array = b.addNode(b.typeId('Item[]'), 24 + 8 * n);
  b.addEdge(list, array, b.nameId('_items'));
  for (let i = 0; i < n; i++) {
    const item = b.addNode(b.typeId('Item'), 24);
    const payload = b.addNode(b.typeId('byte[]'), 124);
    b.addEdge(array, item);
    b.addEdge(item, payload, b.nameId('Payload'));
  }
  b.addRoot('static', 'static var Cache.Items', list);
  let prev = -1;
  for (let i = 0; i < chain; i++) {
    const node = b.addNode(b.typeId('Node'), 32);
    if (prev >= 0) b.addEdge(prev, node, b.nameId('Next'));
    else b.addRoot('stack', 'local vars', node);
    prev = node;
  }
  b.addRoot('handle', 'strong Handles', b.addNode(b.typeId('Held'), 24));
  return new HeapAnalysis(b.build());
}

test('per type: counts, own bytes, and retained bytes counting nested instances once', () => {
  const stats = new Map(leaky(100, 50).typeStats().map((t) => [t.type, t]));
  assert.deepEqual(stats.get('Item'), { type: 'Item', count: 100, bytes: 2400, retainedBytes: 100 * (24 + 124) });
  assert.deepEqual(stats.get('List<Item>'), { type: 'List<Item>', count: 1, bytes: 32, retainedBytes: 32 + 824 + 100 * 148 });
  // Each Node dominates the rest of the list; the type's retained bytes are the head's, not the sum over all.
  assert.deepEqual(stats.get('Node'), { type: 'Node', count: 50, bytes: 1600, retainedBytes: 1600 });
  assert.equal(stats.get('Held')?.retainedBytes, 24);
});

test('paths from roots are grouped by the names along them, fields named when the snapshot has them', () => {
  const a = leaky(100, 3);
  assert.deepEqual(a.pathsTo('byte[]'), [
    { path: ['[static var Cache.Items]', 'List<Item>', '._items Item[]', 'Item', '.Payload byte[]'], count: 100 },
  ]);
  assert.deepEqual(a.pathsTo('Held'), [{ path: ['[strong Handles]', 'Held'], count: 1 }]);
  assert.deepEqual(a.pathsTo('Node'), [
    { path: ['[local vars]', 'Node'], count: 1 },
    { path: ['[local vars]', 'Node', '.Next Node'], count: 1 },
    { path: ['[local vars]', 'Node', '.Next Node', '.Next Node'], count: 1 },
  ]);
  assert.deepEqual(a.pathsTo('NoSuchType'), []);
});

test('paths longer than the hop limit keep the root, its object and the last hops, and group as one', () => {
  const paths = leaky(1, 40).pathsTo('Node', 4);
  assert.deepEqual(paths, [
    { path: ['[local vars]', 'Node', '…', '.Next Node', '.Next Node', '.Next Node'], count: 36 },
    { path: ['[local vars]', 'Node'], count: 1 },
    { path: ['[local vars]', 'Node', '.Next Node'], count: 1 },
    { path: ['[local vars]', 'Node', '.Next Node', '.Next Node'], count: 1 },
    { path: ['[local vars]', 'Node', '.Next Node', '.Next Node', '.Next Node'], count: 1 },
  ]);
});

test('a diff of two snapshots names the type that grew and by how much', () => {
  const diff = diffTypeStats(leaky(100, 5).typeStats(), leaky(250, 5).typeStats());
  assert.equal(diff[0].type, 'Item');
  assert.equal(diff[0].countDelta, 150);
  assert.equal(diff[0].retainedDelta, 150 * 148);
  assert.ok(!diff.some((d) => d.type === 'Node' || d.type === 'Held'), 'unchanged types are left out');
  const shrunk = diffTypeStats(leaky(250, 5).typeStats(), leaky(100, 0).typeStats());
  assert.deepEqual(shrunk.find((d) => d.type === 'Node'), { type: 'Node', count: 0, countDelta: -5, bytes: 0, bytesDelta: -160, retainedBytes: 0, retainedDelta: -160 });
});

test('a diff of paths names the path that holds the growth', () => {
  const grown = diffPaths(leaky(100, 2).pathsTo('Item'), leaky(250, 2).pathsTo('Item'));
  assert.deepEqual(grown, [{ path: ['[static var Cache.Items]', 'List<Item>', '._items Item[]', 'Item'], count: 250, countDelta: 150 }]);
  assert.deepEqual(diffPaths(leaky(10, 3).pathsTo('Node'), leaky(10, 2).pathsTo('Node')), [
    { path: ['[local vars]', 'Node', '.Next Node', '.Next Node'], count: 0, countDelta: -1 },
  ]);
});
