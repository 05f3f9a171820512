import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamFeeder } from './stream-feeder.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('StreamFeeder', () => {
  it('passes chunks that continue the stream', () => {
    const f = new StreamFeeder();
    assert.deepEqual(f.accept(0, bytes(1, 2)), { kind: 'bytes', offset: 0, bytes: bytes(1, 2) });
    assert.deepEqual(f.accept(2, bytes(3)), { kind: 'bytes', offset: 2, bytes: bytes(3) });
    assert.equal(f.position, 3);
  });

  it('drops what it already has and keeps the new tail of an overlapping chunk', () => {
    const f = new StreamFeeder();
    f.accept(0, bytes(1, 2, 3));
    assert.deepEqual(f.accept(0, bytes(1, 2)), { kind: 'duplicate' });
    const tail = f.accept(1, bytes(2, 3, 4, 5));
    assert.equal(tail.kind, 'bytes');
    if (tail.kind === 'bytes') {
      assert.equal(tail.offset, 3);
      assert.deepEqual([...tail.bytes], [4, 5]);
    }
    assert.equal(f.position, 5);
  });

  it('reports a gap instead of splicing bytes out of order', () => {
    const f = new StreamFeeder();
    f.accept(0, bytes(1));
    assert.deepEqual(f.accept(5, bytes(9)), { kind: 'gap', expected: 1, got: 5 });
    assert.equal(f.position, 1);
    f.reset();
    assert.equal(f.position, 0);
  });

  it('ignores empty chunks', () => {
    const f = new StreamFeeder();
    assert.deepEqual(f.accept(0, new Uint8Array(0)), { kind: 'duplicate' });
  });
});
