import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_START_MONO, fixtureEncoder } from '../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { SampleFlags } from '../wire/records.js';
import { REQUESTS } from '../wire/timeline/requests.js';
import { quantile, requestTable, requestTableText, requestsOf, sampleRequests } from './requests.js';

// fixtureStream's samples are at start + 1000 * (i + 1) on threads (os tid) 100, 100, 200, 300,
// 200, 100, 200, 100 with CPU 10, 20, 0, 5, 7, 4, 0, 1.
const T = FIXTURE_START_MONO;

/**
 * With `marked`, three more samples the profiler marked with a request (REQUEST_SAMPLES), before
 * the REQUESTs, as it sends them: at 8500 on tid 100 in request seq 2 (begun on tid 200), CPU
 * 3 ms; at 8600 on tid 300 in seq 99, a request the recording lacks, CPU 2 ms; at 8700 on tid 300
 * in seq 3 (begun on tid 200), CPU 0.5 ms.
 */
function recording(marked = false): ReturnType<typeof recordingFromStream> {
  const enc = fixtureEncoder();
  if (marked) {
    // Stack 1 is the fixture's first, Main;Work;Hot.
    enc.stackSample(T + 8500, 1, SampleFlags.Cpu, 3e6, 0, 1, 0, 0, 2);
    enc.stackSample(T + 8600, 3, SampleFlags.Cpu, 2e6, 0, 1, 0, 0, 99);
    enc.stackSample(T + 8700, 3, SampleFlags.Cpu, 5e5, 0, 1, 0, 0, 3);
  }
  const strings = ['GET', '/cpu/{ms}', '/fail', 'aaaa', 'bbbb', 'cccc', 's1', 's2', 's3'];
  strings.forEach((text, i) => enc.string(100 + i, text));
  // A request on tid 100 from 500 to 2500 (samples 1 and 2), one on tid 200 that tid 200's next
  // request cuts short at 4500 (its sample 3 only), that next one (sample 5 at 5000, a 500), and
  // one in flight on tid 300 from 3500 (sample 4).
  enc.timeline(REQUESTS, { mono: T + 500, endMono: T + 2500, startTid: 100, endTid: 100, status: 200, method: 100, endpoint: 101, traceId: 103, spanId: 106, seq: 1 });
  enc.timeline(REQUESTS, { mono: T + 2500, endMono: T + 9000, startTid: 200, endTid: 300, status: 200, method: 100, endpoint: 101, traceId: 104, spanId: 107, seq: 2 });
  enc.timeline(REQUESTS, { mono: T + 4500, endMono: T + 5500, startTid: 200, endTid: 200, status: 500, method: 100, endpoint: 102, traceId: 105, spanId: 108, seq: 3 });
  enc.timeline(REQUESTS, { mono: T + 3500, endMono: 0, startTid: 300, endTid: 0, status: 0, method: 100, endpoint: 102, traceId: 105, spanId: 108, seq: 4 });
  return recordingFromStream([enc.bytes().slice()]);
}

test('a sample is the request begun on its thread before it, not ended, and not followed by another begun there', () => {
  const rec = recording();
  const requests = requestsOf(rec);
  assert.deepEqual(requests.map((r) => r.endpoint), ['GET /cpu/{ms}', 'GET /cpu/{ms}', 'GET /fail', 'GET /fail']);
  assert.equal(requests[3].endNs, undefined);
  assert.equal(requests[0].traceId, 'aaaa');
  assert.deepEqual(Array.from(sampleRequests(rec, requests)), [0, 0, 1, 3, 2, -1, -1, -1]);
});

test('the table per endpoint: counts, nearest-rank latencies, CPU of the samples held, errors, in flight', () => {
  const rows = requestTable(recording());
  assert.deepEqual(rows, [
    // Milliseconds to three decimals: 6,500 ns is 0.007 ms; the samples' CPU (30 ns, 12 ns) rounds to 0.
    { endpoint: 'GET /cpu/{ms}', count: 2, p50Ms: 0.002, p90Ms: 0.007, p99Ms: 0.007, maxMs: 0.007, cpuMs: 0, errors: 0, inFlight: 0 },
    { endpoint: 'GET /fail', count: 1, p50Ms: 0.001, p90Ms: 0.001, p99Ms: 0.001, maxMs: 0.001, cpuMs: 0, errors: 1, inFlight: 1 },
  ]);
  const text = requestTableText(rows);
  assert.match(text, /^endpoint\s+count\s+p50 ms/);
  assert.match(text, /GET \/fail\s+1\s+0\.00\s+0\.00\s+0\.00\s+0\.00\s+0\.0\s+0\.00\s+1\s+1/);
});

test('a sample marked with a request the recording has is that request\'s, on whatever thread; a followed request holds its marked samples and its synchronous part; any other sample falls back to its thread\'s window', () => {
  const rec = recording(true);
  assert.equal(rec.hasRequestMarks, true);
  assert.deepEqual([0, 7, 8, 9, 10].map((i) => rec.requestSeqOf(i)), [0, 0, 2, 99, 3]);
  const requests = requestsOf(rec);
  assert.deepEqual(requests.map((r) => r.seq), [1, 2, 3, 4]);
  // Sample 8 (tid 100, outside its thread's request) is request 1's by its mark; sample 9 names a
  // request not recorded, so tid 300's request in flight holds it; sample 10's mark beats that
  // window. Requests 1 and 2 (seqs 2 and 3) were followed. Before their first marked samples, on
  // the thread that began them, sample 2 used no CPU (the pool's idle wait after the request's
  // first await): not request 1's; sample 4 ran on no async chain and used CPU (request 2's part
  // before anything awaited, as for a connection's first request): request 2's.
  assert.deepEqual(Array.from(sampleRequests(rec, requests)), [0, 0, -1, 3, 2, -1, -1, -1, 1, 3, 2]);
  const rows = requestTable(rec);
  assert.deepEqual(rows.map((r) => [r.endpoint, r.cpuMs]), [['GET /cpu/{ms}', 3], ['GET /fail', 2.5]]);
  assert.equal(recording().hasRequestMarks, false);
});

test('nearest-rank quantiles, and a recording without requests says so', () => {
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5), 5);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.99), 10);
  assert.equal(quantile([], 0.5), 0);
  const rec = recordingFromStream([fixtureEncoder().bytes().slice()]);
  assert.deepEqual(requestTable(rec), []);
  assert.match(requestTableText([]), /No HTTP requests/);
});
