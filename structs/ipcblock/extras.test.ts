import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBlock } from './decode.js';
import { decodeExtras, EXTRAS_OFFSET } from './extras.js';
import { writeExtras } from './extras.test-support.js';
import { buildGoldenBlock } from './golden-fixtures.js';

test('the extras are read at the offsets the profiler writes them (core/counters_extras.h), only the fields marked present', () => {
  const block = new Uint8Array(2048);
  const v = new DataView(block.buffer);
  v.setUint32(EXTRAS_OFFSET, 0x31585343, true);  // "CSX1"
  v.setUint32(EXTRAS_OFFSET + 4, 96, true);
  v.setBigUint64(EXTRAS_OFFSET + 8, (1n << 0n) | (1n << 9n), true);  // gcHandles, threadPoolCompleted
  v.setBigInt64(EXTRAS_OFFSET + 16, -537n, true);
  v.setFloat64(EXTRAS_OFFSET + 24, 123.5, true);  // allocBytesPerSec, not marked present
  v.setBigUint64(EXTRAS_OFFSET + 88, 4_000_000_123n, true);
  assert.deepEqual(decodeExtras(block), { gcHandles: -537, threadPoolCompleted: 4_000_000_123 });
});

test('a block without the magic (the .NET Framework\'s, an older clrscope\'s) has no extras', () => {
  const plain = buildGoldenBlock({ bitness: 64, runtimeId: 1 });
  assert.equal(decodeExtras(plain), undefined);
  assert.equal('extras' in decodeBlock(plain, 64), false);
  assert.equal(decodeExtras(new Uint8Array(1100)), undefined, 'too short for the section');
});

test('decodeBlock carries the extras of both bitnesses', () => {
  for (const bitness of [32, 64] as const) {
    const block = writeExtras(buildGoldenBlock({ bitness, runtimeId: 1 }), { workingSetBytes: 5e7, cpuPercent: 12.5 });
    assert.deepEqual(decodeBlock(block, bitness).extras, { workingSetBytes: 5e7, cpuPercent: 12.5 });
  }
});
