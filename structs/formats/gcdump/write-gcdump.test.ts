import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HeapAnalysis } from '../../heap/heap-analysis.js';
import { HeapSnapshotBuilder, ROOT_KINDS, type HeapSnapshot } from '../../heap/heap-snapshot.js';
import { readGcdump } from './read-gcdump.js';
import { writeGcdump } from './write-gcdump.js';

// dotnet-gcdump's own file of LeakHeap (see read-gcdump.test.ts). Tests run from dist/.
const fixture = readFileSync(new URL('../../../../structs/formats/gcdump/fixtures/leakheap-1000.gcdump', import.meta.url));

/** Roots as "kind name → target" lines, sorted, for comparing snapshots whose root order may differ. */
function rootLines(s: HeapSnapshot): string[] {
  return [...s.rootTarget].map((t, r) => `${ROOT_KINDS[s.rootKind[r]]} ${s.names[s.rootName[r]]} → ${t}`).sort();
}

test("dotnet-gcdump's file written again reads back the same: objects, sizes, addresses, references, roots, analysis", () => {
  const first = readGcdump(fixture);
  const bytes = writeGcdump(first, { pid: 4242, takenAt: '2026-12-06T12:00:00.000Z' });
  const again = readGcdump(bytes);
  assert.equal(again.nodeCount, first.nodeCount);
  assert.deepEqual([...again.nodeType].map((t) => again.typeNames[t]), [...first.nodeType].map((t) => first.typeNames[t]));
  assert.deepEqual(again.nodeSize, first.nodeSize);
  assert.deepEqual(again.nodeAddress, first.nodeAddress);
  assert.deepEqual(again.edgeStart, first.edgeStart);
  assert.deepEqual(again.edgeTarget, first.edgeTarget);
  assert.deepEqual(rootLines(again), rootLines(first));
  const a = new HeapAnalysis(first).typeStats();
  const b = new HeapAnalysis(again).typeStats();
  assert.deepEqual(b, a);
  // The stream's end names its own parts: the trailer, the forward-reference table and its one entry.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const trailer = view.getInt32(bytes.length - 4, true);
  assert.equal(trailer, bytes.length - 8);
  const table = view.getInt32(trailer, true);
  assert.equal(view.getInt32(table, true), 1);
  assert.equal(bytes[view.getInt32(table + 4, true)], 13, 'the interop region ends where the creation tool (a tagged string) begins');
  assert.ok(Buffer.from(bytes).includes(Buffer.from('\x08\x00\x00\x00clrscope')), 'the creation tool');
});

test('objects of any size, references far apart and every kind of root survive the compressed encoding', () => {
  const b = new HeapSnapshotBuilder();
  const big = b.typeId('System.Byte[]');
  const small = b.typeId('App.Node');
  // Sizes on each side of every compressed width (1 to 5 bytes), a >2 GiB array clamped as the format does.
  const sizes = [0, 24, 63, 64, 8191, 8192, 1048575, 1048576, 134217727, 134217728, 2 ** 31 - 1];
  for (const s of sizes) b.addNode(big, s, 0x7f0000000000 + s * 8);
  const n = 70_000;
  for (let i = 0; i < n; i++) b.addNode(small, 32, 0x7e0000000000 + i * 32);
  const first = sizes.length;
  // References forward and backward by up to the whole snapshot.
  for (let i = 0; i < n; i += 7) b.addEdge(first + i, first + ((i * 7919) % n));
  b.addEdge(first + n - 1, 0);
  b.addEdge(0, first + n - 1);
  b.addRoot('static', 'static var App.Cache.Items', first);
  b.addRoot('stack', 'local vars', first + 5);
  b.addRoot('handle', 'strong Handles', 3);
  b.addRoot('handle', 'pinning Handles', 4);
  b.addRoot('finalizer', 'finalizer Handles', 6);
  const snap = b.build();
  const back = readGcdump(writeGcdump(snap));
  assert.deepEqual(back.nodeSize, snap.nodeSize);
  assert.deepEqual(back.nodeAddress, snap.nodeAddress);
  assert.deepEqual(back.edgeStart, snap.edgeStart);
  assert.deepEqual(back.edgeTarget, snap.edgeTarget);
  assert.deepEqual(rootLines(back), rootLines(snap));
});
