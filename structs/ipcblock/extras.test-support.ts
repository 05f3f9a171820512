// Writes clrscope's extras section into a block's bytes, as the profiler lays it out
// (native-profiler/core/counters_extras.h), for tests of its readers.
import { EXTRAS_FIELDS, EXTRAS_MAGIC, EXTRAS_OFFSET, EXTRAS_SIZE, type ExtrasCounters } from './extras.js';

export function writeExtras(block: Uint8Array, values: ExtrasCounters): Uint8Array {
  const v = new DataView(block.buffer, block.byteOffset + EXTRAS_OFFSET, EXTRAS_SIZE);
  v.setUint32(0, EXTRAS_MAGIC, true);
  v.setUint32(4, EXTRAS_SIZE, true);
  let present = 0n;
  EXTRAS_FIELDS.forEach(([name, type], i) => {
    const value = values[name];
    if (value === undefined) return;
    present |= 1n << BigInt(i);
    const at = 16 + 8 * i;
    if (type === 'f64') v.setFloat64(at, value, true);
    else if (type === 'i64') v.setBigInt64(at, BigInt(value), true);
    else v.setBigUint64(at, BigInt(value), true);
  });
  v.setBigUint64(8, present, true);
  return block;
}
