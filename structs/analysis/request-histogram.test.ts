import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_START_MONO, fixtureEncoder } from '../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { REQUESTS } from '../wire/timeline/requests.js';
import { requestsTab } from './request-histogram.js';

const T = FIXTURE_START_MONO;

test('each endpoint\'s histogram holds every request that ended, in buckets growing by √2 from 0.25 ms', () => {
  const enc = fixtureEncoder();
  ['GET', '/a', '/b'].forEach((text, i) => enc.string(100 + i, text));
  // /a: 1 ms, 1.2 ms and 300 ms; /b: 0.1 ms, and one in flight.
  for (const ms of [1, 1.2, 300]) enc.timeline(REQUESTS, { mono: T, endMono: T + ms * 1e6, startTid: 100, endTid: 100, status: 200, method: 100, endpoint: 101, traceId: 0, spanId: 0, seq: 0 });
  enc.timeline(REQUESTS, { mono: T, endMono: T + 0.1e6, startTid: 200, endTid: 200, status: 200, method: 100, endpoint: 102, traceId: 0, spanId: 0, seq: 0 });
  enc.timeline(REQUESTS, { mono: T, endMono: 0, startTid: 300, endTid: 0, status: 0, method: 100, endpoint: 102, traceId: 0, spanId: 0, seq: 0 });
  const tab = requestsTab(recordingFromStream([enc.bytes().slice()]));
  const a = tab.histograms['GET /a'];
  assert.equal(a.counts.reduce((s, n) => s + n, 0), 3);
  assert.equal(a.bounds.length, a.counts.length + 1);
  // 1 ms is 0.25 × √2^4: the first bucket begins there; 1.2 ms falls in it too; 300 ms in the last.
  assert.ok(Math.abs(a.bounds[0] - 1) < 1e-9, String(a.bounds[0]));
  assert.equal(a.counts[0], 2);
  assert.equal(a.counts[a.counts.length - 1], 1);
  assert.ok(a.bounds[a.counts.length - 1] <= 300 && 300 < a.bounds[a.counts.length]);
  assert.deepEqual(tab.histograms['GET /b'], { bounds: [0, 0.25 * Math.SQRT2], counts: [1] });
  assert.deepEqual(tab.rows.map((r) => [r.endpoint, r.count, r.inFlight]), [['GET /a', 3, 0], ['GET /b', 1, 1]]);
  assert.equal(tab.tracking, null, 'no REQUEST_WINDOW: every request recorded');
});

test('the tab carries the tracking its sentence is made from when the profiler listened part of the time', () => {
  const enc = fixtureEncoder();
  enc.requestWindow({ startMono: T, endMono: T + 1e6, begun: 5, cut: 0, maxPerS: 83 });
  enc.requestWindow({ startMono: T + 1e9, endMono: T + 1.001e9, begun: 4, cut: 1, maxPerS: 83 });
  const tab = requestsTab(recordingFromStream([enc.bytes().slice()]));
  assert.deepEqual(tab.tracking && [tab.tracking.windows, tab.tracking.begun, tab.tracking.cut, tab.tracking.sampled], [2, 9, 1, true]);
});

test('a busy server\'s 300,000 requests make a histogram without overflowing the call stack', () => {
  const enc = fixtureEncoder();
  ['GET', '/a'].forEach((text, i) => enc.string(100 + i, text));
  for (let i = 0; i < 300_000; i++) enc.timeline(REQUESTS, { mono: T + i, endMono: T + i + 1e6 + (i % 1000) * 1e3, startTid: 100, endTid: 100, status: 200, method: 100, endpoint: 101, traceId: 0, spanId: 0, seq: 0 });
  const h = requestsTab(recordingFromStream([enc.bytes().slice()])).histograms['GET /a'];
  assert.equal(h.counts.reduce((s, n) => s + n, 0), 300_000);
});
