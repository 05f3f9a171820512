import { test } from 'node:test';
import assert from 'node:assert/strict';
import { saveRecording } from '../formats/clrscope-file/save-recording.js';
import { openRecording } from '../formats/clrscope-file/open-recording.js';
import { mergeProcesses } from '../profile/merge-processes.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { requestFixtureStream, type RequestWindowInput } from '../profile/request-fixture-stream.test-support.js';
import { REQUEST_WINDOWS } from '../wire/timeline/request-windows.js';
import { requestTracking, requestTrackingJson, requestTrackingSentence, type RequestTracking } from './request-tracking.js';

// Three windows of 10 ns, at 0, 100 and 200: a tenth of each 100 ns listened, the last one cut short by the stream.
const SAMPLED: RequestWindowInput[] = [
  { startMono: 0, endMono: 10, begun: 300, cut: 1, maxPerS: 166 },
  { startMono: 100, endMono: 110, begun: 100, cut: 2, maxPerS: 166 },
  { startMono: 200, endMono: 210, begun: 12, cut: 0, maxPerS: 166 },
];
// A bridge that listened all the time: one window, to the END.
const WHOLE: RequestWindowInput[] = [{ startMono: 0, endMono: 700, begun: 2, cut: 0, maxPerS: 0 }];

const tracking = (over: Partial<RequestTracking>): RequestTracking => ({ windows: 2, trackedNs: 1, spanNs: 2, fraction: 0.5, begun: 10, cut: 0, maxPerS: 100, sampled: true, ...over });

test('a recording without REQUEST_WINDOW recorded every request: no tracking, no sentence', () => {
  const rec = recordingFromStream([requestFixtureStream(5)]);
  assert.equal(requestTracking(rec), null);
  assert.equal(requestTrackingSentence(null), null);
});

test('a bridge that listened all the time: one window, the whole span, not sampled', () => {
  const t = requestTracking(recordingFromStream([requestFixtureStream(5, WHOLE)]));
  assert.deepEqual(t, { windows: 1, trackedNs: 700, spanNs: 700, fraction: 1, begun: 2, cut: 0, maxPerS: 0, sampled: false });
  assert.equal(requestTrackingSentence(t), null);
});

test('windows of a second: the time listened over the first start to the last end, the requests summed, the budget', () => {
  const t = requestTracking(recordingFromStream([requestFixtureStream(5, SAMPLED)]));
  assert.deepEqual(t, { windows: 3, trackedNs: 30, spanNs: 210, fraction: 30 / 210, begun: 412, cut: 3, maxPerS: 166, sampled: true });
  assert.equal(requestTrackingSentence(t),
    'Sampled: the profiler listened for requests 14% of the time (budget 166 requests/s; record --requests-rate all records every request); '
    + 'the counts are of the 412 requests begun while it listened, 3 of which were still running when it stopped and are not counted.');
  assert.deepEqual(requestTrackingJson(t!), { fraction: 0.142857, trackedMs: 0, spanMs: 0, windows: 3, begun: 412, cut: 3, maxPerS: 166, sampled: true });
});

test('the sentence: small shares keep their digits, one request and one cut agree, no budget and nothing cut say nothing', () => {
  assert.equal(requestTrackingSentence(tracking({ sampled: false })), null);
  assert.equal(requestTrackingSentence(tracking({ fraction: 0.017, begun: 1, cut: 1, maxPerS: 1500 })),
    'Sampled: the profiler listened for requests 1.7% of the time (budget 1,500 requests/s; record --requests-rate all records every request); '
    + 'the counts are of the 1 request begun while it listened, 1 of which was still running when it stopped and is not counted.');
  assert.equal(requestTrackingSentence(tracking({ fraction: 0.0025, begun: 12_345, cut: 0, maxPerS: 0 })),
    'Sampled: the profiler listened for requests 0.25% of the time (record --requests-rate all records every request); '
    + 'the counts are of the 12,345 requests begun while it listened.');
});

test('several processes: each measured over its own windows, then summed; any without a budget leaves none to name', () => {
  const parts = [
    { process: { pid: 5, name: 'web' }, recording: recordingFromStream([requestFixtureStream(5, SAMPLED.slice(0, 2))]) },
    { process: { pid: 6, name: 'web' }, recording: recordingFromStream([requestFixtureStream(6, WHOLE)]) },
  ];
  const rec = mergeProcesses(parts);
  // Each window names its process, the profiler's 0 replaced by the part's pid.
  assert.deepEqual(rec.timeline(REQUEST_WINDOWS).map((w) => [w.pid, w.startMono - rec.meta!.startMono]), [[5, 0], [5, 100], [6, 0]]);
  // Over all windows at once the 700 ns of process 6 would exceed the 700 ns span: each process has its own.
  const t = requestTracking(rec);
  assert.deepEqual(t, { windows: 3, trackedNs: 720, spanNs: 810, fraction: 720 / 810, begun: 402, cut: 3, maxPerS: 0, sampled: true });
  // Two processes that both listened all the time: two windows, not a sample.
  const whole = mergeProcesses([parts[1], { process: { pid: 7, name: 'web' }, recording: recordingFromStream([requestFixtureStream(7, WHOLE)]) }]);
  assert.deepEqual(requestTracking(whole), { windows: 2, trackedNs: 1400, spanNs: 1400, fraction: 1, begun: 4, cut: 0, maxPerS: 0, sampled: false });
});

test('a .clrscope file keeps the windows and their processes', () => {
  const one = recordingFromStream([requestFixtureStream(5, SAMPLED)]);
  const reopened = openRecording(saveRecording(one)).recording;
  assert.deepEqual(reopened.timeline(REQUEST_WINDOWS), one.timeline(REQUEST_WINDOWS));
  assert.deepEqual(requestTracking(reopened), requestTracking(one));
  const merged = mergeProcesses([
    { process: { pid: 5, name: 'web' }, recording: one },
    { process: { pid: 6, name: 'web' }, recording: recordingFromStream([requestFixtureStream(6, WHOLE)]) },
  ]);
  const back = openRecording(saveRecording(merged)).recording;
  assert.deepEqual(back.timeline(REQUEST_WINDOWS), merged.timeline(REQUEST_WINDOWS));
  assert.deepEqual(requestTracking(back), requestTracking(merged));
});
