// For the tests that hold the decoding path to no allocation per sample: a heap-allocation meter
// and the stream they all decode, so every such bound is measured the same way on the same bytes.

import { GCProfiler, getHeapStatistics } from 'node:v8';
import { WireDecoder, type WireSink } from './decoder.js';
import { WireEncoder } from './encoder.js';

/** JS heap bytes allocated while `work` runs: growth outside collections plus what each GC freed. */
export function heapBytesAllocatedBy(work: () => void): number {
  const profiler = new GCProfiler();
  profiler.start();
  const start = getHeapStatistics().used_heap_size;
  work();
  const end = getHeapStatistics().used_heap_size;
  let freed = 0;
  for (const gc of profiler.stop().statistics) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  return end - start + freed;
}

export const PROBE_CHUNK = 64 * 1024;

/** `samples` samples at depth 32 over 200 distinct stacks, with u64 values above 2^32 so doubles are in play. */
export function probeStream(version: number, samples: number): Uint8Array {
  const enc = new WireEncoder(samples * 170 + 65_536).preamble(version)
    .hello({ pid: 1, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' })
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 0, name: 't' })
    .thread({ threadId: 2, osTid: 2, clrThreadId: 2, mono: 0, name: 'u' });
  for (let f = 1; f <= 300; f++) enc.function({ functionId: f, kind: 0, name: `F${f}`, module: 'M.dll', file: '' });
  const stacks = Array.from({ length: 200 }, (_, s) => Uint32Array.from({ length: 32 }, (_, i) => 1 + ((s * 31 + i * 7) % 300)));
  const sample = { mono: 0, threadId: 1, flags: 3, cpuNs: 0, wallNs: 0, frames: stacks[0] };
  for (let i = 0; i < samples; i++) {
    sample.mono = 6_000_000_000 + i * 1000;
    sample.threadId = 1 + (i & 1);
    sample.cpuNs = 5_000_000_000 + i;
    sample.wallNs = 7_000_000_000 + i;
    sample.frames = stacks[(i * 7) % stacks.length];
    enc.sample(sample);
  }
  return enc.bytes();
}

/** Decodes `bytes` into `sink` in PROBE_CHUNK pieces, as a socket delivers them. */
export function feedInChunks(bytes: Uint8Array, sink: WireSink): void {
  const decoder = new WireDecoder(sink);
  for (let p = 0; p < bytes.length; p += PROBE_CHUNK) decoder.push(bytes.subarray(p, p + PROBE_CHUNK));
}
