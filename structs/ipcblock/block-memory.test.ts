// The accessor over plain bytes (tests, fakes, and over a koffi view the fast path), windows into
// it, and the sequence lock read through it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockInside, memoryFromBytes, memoryWindow } from './block-memory.js';
import { readConsistent } from './consistent-read.js';
import { IpcBlockError } from './ipc-block-error.js';

function block(counter: number, fill = 0): Uint8Array {
  const bytes = new Uint8Array(2048).fill(fill);
  new DataView(bytes.buffer).setInt32(0, counter, true);
  return bytes;
}

describe('memoryFromBytes', () => {
  it('reads the bytes in place: a later write shows in the next read', () => {
    const bytes = block(2, 0x11);
    const memory = memoryFromBytes(bytes);
    assert.equal(memory.size, 2048);
    assert.equal(memory.access, 'bytes');
    assert.equal(memory.source, 'bytes');
    assert.equal(memory.readInt32(0), 2);
    new DataView(bytes.buffer).setInt32(0, -8, true);
    assert.equal(memory.readInt32(0), -8, 'signed, little-endian, read afresh');
    const into = new Uint8Array(6);
    memory.read(into, 100, 4);
    assert.deepEqual([...into], [0x11, 0x11, 0x11, 0x11, 0, 0]);
    bytes[101] = 0x22;
    memory.read(into, 100, 4);
    assert.deepEqual([...into.subarray(0, 4)], [0x11, 0x22, 0x11, 0x11], 'the same range read again is read again');
    memory.read(into.subarray(4), 2046, 2);
    assert.deepEqual([...into], [0x11, 0x22, 0x11, 0x11, 0x11, 0x11], 'into a subarray, at its own offset');
  });

  it('reads only inside the bytes, whole offsets, into a buffer large enough', () => {
    const memory = memoryFromBytes(new Uint8Array(2048));
    for (const offset of [-1, 2045, 2048, 0.5, Number.NaN]) assert.throws(() => memory.readInt32(offset), RangeError, String(offset));
    assert.throws(() => memory.read(new Uint8Array(8), 2044, 8), RangeError);
    assert.throws(() => memory.read(new Uint8Array(8), 0, -1), RangeError);
    assert.throws(() => memory.read(new Uint8Array(4), 0, 8), /copy buffer has 4 bytes, fewer than the 8/);
    memory.read(new Uint8Array(0), 2048, 0);
  });

  it('a view with a byte offset reads its own bytes', () => {
    const outer = new Uint8Array(4096);
    outer[1024] = 4;
    outer[1030] = 9;
    const memory = memoryFromBytes(outer.subarray(1024, 1024 + 2048), { source: 'middle', access: 'view' });
    assert.equal(memory.readInt32(0), 4);
    const into = new Uint8Array(8);
    memory.read(into, 0, 8);
    assert.deepEqual([...into], [4, 0, 0, 0, 0, 0, 9, 0]);
    assert.equal(memory.access, 'view');
    assert.equal(memory.source, 'middle');
  });

  it('close() releases once; reads after it throw', () => {
    let released = 0;
    const memory = memoryFromBytes(block(2), { source: '/dev/shm/x', release: () => released++ });
    memory.close();
    memory.close();
    assert.equal(released, 1);
    assert.throws(() => memory.readInt32(0), /^Error: The counters block at \/dev\/shm\/x was read after it was closed\.$/);
    assert.throws(() => memory.read(new Uint8Array(4), 0, 4), /read after it was closed/);
  });
});

describe('windows', () => {
  it('memoryWindow reads at its offset, live, and only inside itself', () => {
    const bytes = new Uint8Array(8192);
    const table = memoryFromBytes(bytes);
    const window = memoryWindow(table, 4096, 2048);
    bytes[4096] = 6;
    bytes[4100] = 0x7f;
    assert.equal(window.size, 2048);
    assert.equal(window.readInt32(0), 6);
    const into = new Uint8Array(8);
    window.read(into, 4, 1);
    assert.equal(into[0], 0x7f);
    assert.throws(() => window.read(into, 2044, 8), RangeError);
    assert.throws(() => window.readInt32(2046), RangeError);
    assert.throws(() => memoryWindow(table, 8000, 2048), RangeError);
  });

  it('blockInside names its source, keeps the table\'s access, and closes the table', () => {
    let released = 0;
    const table = memoryFromBytes(new Uint8Array(65536), { access: 'copy', release: () => released++ });
    const inner = blockInside(table, 2 * 2048, 2048, 'table, block 2');
    assert.deepEqual([inner.size, inner.source, inner.access], [2048, 'table, block 2', 'copy']);
    inner.close();
    assert.equal(released, 1);
    assert.throws(() => inner.readInt32(0), /read after it was closed/);
  });
});

describe('readConsistent through an accessor', () => {
  it('copies the block at an even counter and returns the counter', () => {
    const bytes = block(10, 0x5a);
    const into = new Uint8Array(2048);
    assert.equal(readConsistent(memoryFromBytes(bytes), into), 10);
    assert.deepEqual(into, bytes);
  });

  it('an odd counter (a writer inside): unsettled after the given tries, nothing copied', () => {
    let copies = 0;
    const memory = memoryFromBytes(block(7));
    const counting = { size: memory.size, readInt32: (o: number) => memory.readInt32(o), read: (i: Uint8Array, o: number, l: number) => { copies++; memory.read(i, o, l); } };
    assert.throws(() => readConsistent(counting, new Uint8Array(2048), 25), (e: unknown) => e instanceof IpcBlockError && e.kind === 'unsettled' && /all 25 attempts/.test(e.message));
    assert.equal(copies, 0);
  });

  it('reads the counter before and after each copy, and retries while it moves', () => {
    const bytes = block(2);
    const memory = memoryFromBytes(bytes);
    const log: string[] = [];
    let step = 0;
    const racing = {
      size: memory.size,
      readInt32: (o: number) => {
        const v = memory.readInt32(o);
        log.push(`counter ${v}`);
        return v;
      },
      read: (i: Uint8Array, o: number, l: number) => {
        log.push('copy');
        memory.read(i, o, l);
        // The writer enters (odd) right after the first copy, and leaves (even) after the second try.
        if (step === 0) new DataView(bytes.buffer).setInt32(0, 3, true);
        step++;
      },
    };
    const stepper = { ...racing, readInt32: (o: number) => {
      const v = racing.readInt32(o);
      if (v === 3 && log.filter((x) => x === 'counter 3').length === 2) new DataView(bytes.buffer).setInt32(0, 4, true);
      return v;
    } };
    assert.equal(readConsistent(stepper, new Uint8Array(2048)), 4);
    assert.deepEqual(log, ['counter 2', 'copy', 'counter 3', 'counter 3', 'counter 4', 'copy', 'counter 4']);
  });

  it('refuses a memory smaller than a block and a buffer smaller than a block', () => {
    assert.throws(() => readConsistent(memoryFromBytes(new Uint8Array(100)), new Uint8Array(2048)), /100 bytes, fewer than a block's 2048/);
    assert.throws(() => readConsistent(memoryFromBytes(block(2)), new Uint8Array(2047)), RangeError);
  });
});
