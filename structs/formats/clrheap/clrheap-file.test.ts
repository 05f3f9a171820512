import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HeapAnalysis } from '../../heap/heap-analysis.js';
import { readGcdump } from '../gcdump/read-gcdump.js';
import { ClrheapFormatError, isClrheap, readClrheap, writeClrheap } from './clrheap-file.js';

// A real snapshot (dotnet-gcdump of test/targets/LeakHeap, 1,000 items) written as .clrheap and read back.
const gcdump = readGcdump(readFileSync(new URL('../../../../structs/formats/gcdump/fixtures/leakheap-1000.gcdump', import.meta.url)));

test('a snapshot written and read back is the same graph, with its generations and where it came from', () => {
  const withGenerations = { ...gcdump, generations: [{ generation: 2, name: 'gen2', sizeBytes: 1000, freeListBytes: 30, freeObjectBytes: 12, fragmentationBytes: 42 }] };
  const bytes = writeClrheap(withGenerations, { pid: 42, gcNumber: 7 });
  assert.ok(isClrheap(bytes));
  // Read from an odd offset, as a file's bytes may sit in a larger buffer.
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const back = readClrheap(shifted.subarray(3));
  assert.equal(back.nodeCount, gcdump.nodeCount);
  assert.deepEqual(back.typeNames, gcdump.typeNames);
  assert.deepEqual([...back.edgeTarget], [...gcdump.edgeTarget]);
  assert.deepEqual([...back.rootTarget], [...gcdump.rootTarget]);
  assert.deepEqual(back.generations, withGenerations.generations);
  assert.deepEqual(back.info, { pid: 42, gcNumber: 7 });
  assert.deepEqual(new HeapAnalysis(back).typeStats(), new HeapAnalysis(gcdump).typeStats());
});

test('a damaged file is one sentence, never a crash or an index out of range', () => {
  const bytes = writeClrheap(gcdump);
  const refuse = (b: Uint8Array, message: RegExp): void => {
    assert.throws(() => readClrheap(b), (err: unknown) => err instanceof ClrheapFormatError && message.test(err.message) && !err.message.includes('\n'));
  };
  refuse(bytes.subarray(0, 10), /truncated/);
  refuse(bytes.subarray(0, bytes.length - 4), /columns should take \d+ bytes/);
  const version = bytes.slice();
  version[8] = 9;
  refuse(version, /version 9/);
  const header = bytes.slice();
  header[16] = 0x7b + 1;
  refuse(header, /not readable JSON/);
  // An edge pointing past the last object: the last reference's target, somewhere before the roots.
  const badEdge = bytes.slice();
  const view = new DataView(badEdge.buffer);
  const jsonLength = view.getUint32(12, true);
  const N = gcdump.nodeCount;
  const pad8 = (n: number): number => (n + 7) & ~7;
  const edgesAt = pad8(16 + jsonLength) + pad8(4 * N) + 16 * N + pad8(4 * (N + 1));
  view.setInt32(edgesAt, N + 5, true);
  refuse(badEdge, /reference 0 names object \d+ of \d+/);
});
