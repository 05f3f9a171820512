// clrscope's own section of a counters block (native-profiler/core/counters_extras.h): figures
// the .NET Framework's perf block has no field for, behind a magic number in the block's zero
// padding. A block without it (the .NET Framework's own, an older clrscope's) has no extras;
// within it, a field whose `present` bit is clear has not arrived yet and is left out.

/** Where the section starts, counted from the start of the block. */
export const EXTRAS_OFFSET = 1024;
/** "CSX1" as a little-endian u32. */
export const EXTRAS_MAGIC = 0x31585343;
export const EXTRAS_SIZE = 96;

/** Field names (camelCase, as `clrscope counters --format json` prints them) in the section's order, each 8 bytes from offset 16. */
export const EXTRAS_FIELDS = [
  ['gcHandles', 'i64'],
  ['allocBytesPerSec', 'f64'],
  ['allocatedBytes', 'u64'],
  ['gcCommittedBytes', 'f64'],
  ['workingSetBytes', 'f64'],
  ['cpuPercent', 'f64'],
  ['threadPoolThreads', 'f64'],
  ['threadPoolQueueLength', 'f64'],
  ['threadPoolCompletedPerSec', 'f64'],
  ['threadPoolCompleted', 'u64'],
] as const;

export type ExtrasField = (typeof EXTRAS_FIELDS)[number][0];
export type ExtrasCounters = Partial<Record<ExtrasField, number>>;

/** The section's fields that hold values, or undefined when the block has no extras. */
export function decodeExtras(bytes: Uint8Array): ExtrasCounters | undefined {
  if (bytes.length < EXTRAS_OFFSET + EXTRAS_SIZE) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset + EXTRAS_OFFSET, EXTRAS_SIZE);
  if (v.getUint32(0, true) !== EXTRAS_MAGIC || v.getUint32(4, true) < EXTRAS_SIZE) return undefined;
  const present = v.getBigUint64(8, true);
  const out: ExtrasCounters = {};
  EXTRAS_FIELDS.forEach(([name, type], i) => {
    if ((present & (1n << BigInt(i))) === 0n) return;
    const at = 16 + 8 * i;
    const value = type === 'f64' ? v.getFloat64(at, true) : Number(type === 'i64' ? v.getBigInt64(at, true) : v.getBigUint64(at, true));
    if (Number.isFinite(value)) out[name] = value;
  });
  return out;
}
