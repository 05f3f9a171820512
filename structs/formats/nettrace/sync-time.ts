// The trace header's clock pair: SyncTimeUTC (a SYSTEMTIME, whole milliseconds) taken at
// SyncTimeQPC. clrscope knows one exact pair (HELLO: startMono ↔ startUnixNs); moving the QPC
// side back by the sub-millisecond remainder gives a pair on the same line with a whole
// millisecond, so every event's wall time comes out exact.

const NS_PER_MS = 1_000_000;

export interface SyncPoint {
  qpc: number;
  unixMs: number;
}

export function syncPoint(startMono: number, startUnixNs: bigint): SyncPoint {
  const ms = startUnixNs / BigInt(NS_PER_MS);
  const remainder = Number(startUnixNs - ms * BigInt(NS_PER_MS));
  if (startMono >= remainder) return { qpc: startMono - remainder, unixMs: Number(ms) };
  // Too early on the monotonic clock to step back: step forward to the next millisecond instead.
  return { qpc: startMono + (NS_PER_MS - remainder), unixMs: Number(ms) + 1 };
}

/** Wall time in Unix ns of a QPC timestamp, given the header's pair and frequency. */
export function unixNsAt(qpc: number, sync: SyncPoint, frequency: number): bigint {
  const deltaNs = Math.round(((qpc - sync.qpc) * 1e9) / frequency);
  return BigInt(sync.unixMs) * BigInt(NS_PER_MS) + BigInt(deltaNs);
}
