import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_EXTRA_ROOT, StackTable } from './stack-table.js';

const u32 = (...v: number[]): Uint32Array => new Uint32Array(v);

test('prefixes, extensions and an extra root are told apart; equal frame lists are one stack', () => {
  const validated: number[][] = [];
  const table = new StackTable((f) => validated.push(Array.from(f)));
  const ids = [
    table.intern(u32(1, 2), NO_EXTRA_ROOT),
    table.intern(u32(1, 2, 3), NO_EXTRA_ROOT),
    table.intern(u32(1, 2), 3),
    table.intern(u32(1, 2), 0xffffffff),
    table.intern(u32(), NO_EXTRA_ROOT),
    table.intern(u32(), 0xffffffff),
    table.intern(u32(1, 2), NO_EXTRA_ROOT),
    table.intern(u32(1, 2), 0xffffffff),
  ];
  // [1,2] + root 3 is the same frame list as [1,2,3], so it is the same stack.
  assert.deepEqual(ids, [0, 1, 1, 2, 3, 4, 0, 2]);
  assert.deepEqual(Array.from(table.frames(1)), [1, 2, 3]);
  assert.deepEqual(Array.from(table.frames(2)), [1, 2, 0xffffffff]);
  assert.deepEqual(Array.from(table.frames(3)), []);
  assert.deepEqual(Array.from(table.frames(4)), [0xffffffff]);
  // Only new stacks are validated, and only their wire frames.
  assert.deepEqual(validated, [[1, 2], [1, 2, 3], [1, 2], [], []]);
});

test('the caller may reuse its frame buffer: the table copies', () => {
  const table = new StackTable(() => undefined);
  const scratch = u32(5, 6, 7);
  const a = table.intern(scratch, NO_EXTRA_ROOT);
  scratch[0] = 9;
  const b = table.intern(scratch, NO_EXTRA_ROOT);
  assert.notEqual(a, b);
  assert.deepEqual(Array.from(table.frames(a)), [5, 6, 7]);
  assert.deepEqual(Array.from(table.frames(b)), [9, 6, 7]);
});

test('a validator that throws leaves the table unchanged', () => {
  const table = new StackTable((f) => { if (f[0] === 13) throw new Error('bad'); });
  table.intern(u32(1), NO_EXTRA_ROOT);
  assert.throws(() => table.intern(u32(13), NO_EXTRA_ROOT), /bad/);
  assert.equal(table.count, 1);
  assert.equal(table.intern(u32(2), NO_EXTRA_ROOT), 1);
});

test('100,000 stacks of one frame each map back exactly after many rehashes', () => {
  const table = new StackTable(() => undefined);
  for (let i = 0; i < 100_000; i++) assert.equal(table.intern(u32(i * 7919), NO_EXTRA_ROOT), i);
  for (let i = 0; i < 100_000; i += 997) {
    assert.equal(table.intern(u32(i * 7919), NO_EXTRA_ROOT), i);
    assert.deepEqual(Array.from(table.frames(i)), [i * 7919]);
  }
  assert.equal(table.count, 100_000);
  assert.ok(table.byteSize() >= 100_000 * 4 * 3);
});
