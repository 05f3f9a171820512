import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HeapAnalysis } from '../../heap/heap-analysis.js';
import { GcdumpFormatError, isGcdump, readGcdump } from './read-gcdump.js';

// A real file: dotnet-gcdump 10.0.750501's snapshot of test/targets/LeakHeap run with
// --items 1000 --stack 30 --handles 7 on .NET 10, whose `dotnet-gcdump report` lists 1,000
// LeakedItem, 30 StackHeldItem and 7 HandleHeldItem. Tests run from dist/; the fixture stays in the source tree.
const fixture = readFileSync(new URL('../../../../structs/formats/gcdump/fixtures/leakheap-1000.gcdump', import.meta.url));
const NS = 'Clrscope.Targets.LeakHeap.';

test('a gcdump from dotnet-gcdump: the objects, their types and sizes, and its roots by kind', () => {
  assert.ok(isGcdump(fixture));
  const snap = readGcdump(fixture);
  const a = new HeapAnalysis(snap);
  const stats = new Map(a.typeStats().map((t) => [t.type, t]));
  assert.equal(stats.get(`${NS}LeakedItem`)?.count, 1000);
  assert.equal(stats.get(`${NS}LeakedItem`)?.bytes, 1000 * 32);
  assert.equal(stats.get(`${NS}StackHeldItem`)?.count, 30);
  assert.equal(stats.get(`${NS}HandleHeldItem`)?.count, 7);
  // The cache retains its items and their 100-byte payloads.
  const cache = stats.get(`System.Collections.Generic.List<${NS}LeakedItem>`);
  assert.ok(cache !== undefined && cache.retainedBytes >= 1000 * (32 + 124), `cache retains ${cache?.retainedBytes}`);
  // Size-bucketed names ("T[] (Bytes > 1K)") are one type with the small ones.
  assert.ok(![...stats.keys()].some((t) => t.includes('(Bytes >')));
  const [path] = a.pathsTo(`${NS}LeakedItem`);
  assert.equal(path.count, 1000);
  assert.match(path.path[0], /^\[static var .*\.Items\]$/);
  const kinds = new Set([...snap.rootKind].map((k) => k));
  assert.ok(kinds.size >= 3, 'static, stack and handle roots at least');
});

test('a gcdump cut anywhere, or not a gcdump at all, is refused with one sentence', () => {
  for (let cut = 0; cut < fixture.length; cut += cut < 256 ? 1 : 97) {
    assert.throws(() => readGcdump(fixture.subarray(0, cut)), (err: unknown) => {
      assert.ok(err instanceof GcdumpFormatError, `cut at ${cut}: ${String(err)}`);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  }
  assert.throws(() => readGcdump(new TextEncoder().encode('hello, world')), /not a \.gcdump file/);
});

test('a gcdump with corrupted bytes is read or refused with one sentence, in bounded time', () => {
  let seed = 99;
  const rand = (k: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % k;
  };
  const started = Date.now();
  let refused = 0;
  for (let round = 0; round < 400; round++) {
    const bytes = Uint8Array.from(fixture);
    const flips = 1 + rand(8);
    for (let i = 0; i < flips; i++) bytes[24 + rand(bytes.length - 24)] = rand(256);
    try {
      new HeapAnalysis(readGcdump(bytes)).typeStats();
    } catch (err) {
      assert.ok(err instanceof GcdumpFormatError, `round ${round}: ${String(err)}`);
      refused++;
    }
  }
  assert.ok(refused > 0);
  assert.ok(Date.now() - started < 30_000, 'bounded time');
});

test('counts larger than the file are refused before anything is allocated for them', () => {
  const bytes = Uint8Array.from(fixture);
  // The type count sits after the header (24), the two type objects and the graph's size and root index.
  const view = new DataView(bytes.buffer);
  const at = fixture.indexOf(Buffer.from('Graphs.MemoryGraph')) + 'Graphs.MemoryGraph'.length + 1 + 8 + 4;
  assert.equal(view.getInt32(at, true), 194, 'the type count of the fixture');
  view.setInt32(at, 0x7fffffff, true);
  assert.throws(() => readGcdump(bytes), /the type table claims 2147483647 entries, more than the \d+ bytes left can hold/);
});
