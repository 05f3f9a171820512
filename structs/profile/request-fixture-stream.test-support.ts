// A small wire v2 stream of a web server whose profiler marked samples with the request they were
// taken in (REQUEST_SAMPLES), for the tests of the recording, saving and merging: marks on threads
// other than the one that began the request, a mark of a request the stream never sends, and the
// REQUEST records after their samples, as the profiler sends them (when each request ends).

import { WireEncoder } from '../wire/encoder.js';
import { SampleFlags, type RequestWindowRecord } from '../wire/records.js';
import { REQUESTS } from '../wire/timeline/requests.js';

export const REQUEST_FIXTURE_START = 1_000_000;

/** A REQUEST_WINDOW as the profiler sends it, its times from the stream's start. */
export type RequestWindowInput = Omit<RequestWindowRecord, 'pid'>;

/**
 * `windows`: REQUEST_WINDOW records the profiler sent, after the requests, times from the start.
 * Threads 1 (tid 11) and 2 (tid 12); request seq 1 (GET /a, begun on tid 11 at +50, ended on tid
 * 12 at +250) and seq 2 (GET /b, begun on tid 12 at +280, ended at +600). Samples at +100 .. +500,
 * CPU 10 each: thread 1 in seq 1, thread 2 in seq 1, thread 1 in seq 2, thread 2 unmarked, thread
 * 2 in seq 3 (a request the stream never sends). `backfill`: the unmarked sample is seq 2's after
 * all, told by a REQUEST_BACKFILL just before seq 2's REQUEST (as for a request begun outside any
 * async chain).
 */
export function requestFixtureStream(pid = 5, windows: readonly RequestWindowInput[] = [], backfill = false): Uint8Array {
  const T = REQUEST_FIXTURE_START;
  const enc = new WireEncoder().preamble()
    .hello({ pid, flags: 1, mono: T, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: '0.4.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: T, name: 'pool' })
    .thread({ threadId: 2, osTid: 12, clrThreadId: 2, mono: T, name: 'pool' })
    .function({ functionId: 1, kind: 0, name: 'Web.Handler', module: 'Web.dll', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1])
    .string(1, 'GET').string(2, '/a').string(3, '/b');
  const marks = [[1, 1], [2, 1], [1, 2], [2, 0], [2, 3]];
  marks.forEach(([thread, seq], i) => {
    enc.stackSample(T + 100 * (i + 1), thread, SampleFlags.Cpu, 10, 0, 1, 0, 0, seq);
    if (i === 1) enc.timeline(REQUESTS, { mono: T + 50, endMono: T + 250, startTid: 11, endTid: 12, status: 200, method: 1, endpoint: 2, traceId: 0, spanId: 0, seq: 1 });
  });
  if (backfill) enc.requestBackfill(2, [2]);
  enc.timeline(REQUESTS, { mono: T + 280, endMono: T + 600, startTid: 12, endTid: 12, status: 200, method: 1, endpoint: 3, traceId: 0, spanId: 0, seq: 2 });
  for (const w of windows) enc.requestWindow({ ...w, startMono: T + w.startMono, endMono: T + w.endMono });
  return enc.end({ mono: T + 700, reason: 0 }).bytes().slice();
}
