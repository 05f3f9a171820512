import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_START_MONO, fixtureEncoder } from '../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { REQUESTS } from '../wire/timeline/requests.js';
import { quantile, requestTable, requestTableText, requestsOf, sampleRequests } from './requests.js';

// fixtureStream's samples are at start + 1000 * (i + 1) on threads (os tid) 100, 100, 200, 300,
// 200, 100, 200, 100 with CPU 10, 20, 0, 5, 7, 4, 0, 1.
const T = FIXTURE_START_MONO;

function recording(): ReturnType<typeof recordingFromStream> {
  const enc = fixtureEncoder();
  const strings = ['GET', '/cpu/{ms}', '/fail', 'aaaa', 'bbbb', 'cccc', 's1', 's2', 's3'];
  strings.forEach((text, i) => enc.string(100 + i, text));
  // A request on tid 100 from 500 to 2500 (samples 1 and 2), one on tid 200 that tid 200's next
  // request cuts short at 4500 (its sample 3 only), that next one (sample 5 at 5000, a 500), and
  // one in flight on tid 300 from 3500 (sample 4).
  enc.timeline(REQUESTS, { mono: T + 500, endMono: T + 2500, startTid: 100, endTid: 100, status: 200, method: 100, endpoint: 101, traceId: 103, spanId: 106 });
  enc.timeline(REQUESTS, { mono: T + 2500, endMono: T + 9000, startTid: 200, endTid: 300, status: 200, method: 100, endpoint: 101, traceId: 104, spanId: 107 });
  enc.timeline(REQUESTS, { mono: T + 4500, endMono: T + 5500, startTid: 200, endTid: 200, status: 500, method: 100, endpoint: 102, traceId: 105, spanId: 108 });
  enc.timeline(REQUESTS, { mono: T + 3500, endMono: 0, startTid: 300, endTid: 0, status: 0, method: 100, endpoint: 102, traceId: 105, spanId: 108 });
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

test('nearest-rank quantiles, and a recording without requests says so', () => {
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5), 5);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.99), 10);
  assert.equal(quantile([], 0.5), 0);
  const rec = recordingFromStream([fixtureEncoder().bytes().slice()]);
  assert.deepEqual(requestTable(rec), []);
  assert.match(requestTableText([]), /No HTTP requests/);
});
