import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireDecoder } from '../wire/decoder.js';
import { RecordType } from '../wire/records.js';
import { REQUESTS } from '../wire/timeline/requests.js';
import { fixtureStream } from './fixture-stream.test-support.js';
import { Recording } from './recording.js';
import { RecordingError } from './recording-error.js';
import { recordingFromStream } from './recording-from-stream.js';
import { REQUEST_FIXTURE_START, requestFixtureStream } from './request-fixture-stream.test-support.js';

const seqs = (rec: Recording): number[] => Array.from({ length: rec.sampleCount }, (_, i) => rec.requestSeqOf(i));

test('REQUEST_SAMPLES marks reach requestSeqOf, a seq no REQUEST has included; REQUESTs keep their seq', () => {
  const rec = recordingFromStream([requestFixtureStream()]);
  assert.equal(rec.hasRequestMarks, true);
  assert.deepEqual(seqs(rec), [1, 1, 2, 0, 3]);
  assert.equal(rec.requestSeqOf(99), 0);
  assert.deepEqual(rec.timeline(REQUESTS).map((r) => r.seq), [1, 2]);
});

test('a recording without marks says so, and every sample is in no request', () => {
  const rec = recordingFromStream([fixtureStream()]);
  assert.equal(rec.hasRequestMarks, false);
  assert.deepEqual(seqs(rec), [0, 0, 0, 0, 0, 0, 0, 0]);
});

test('dropBefore keeps the marks of the kept samples, at their new indexes, and clears the rest', () => {
  const rec = recordingFromStream([requestFixtureStream()]);
  assert.equal(rec.dropBefore(REQUEST_FIXTURE_START + 250), 2);
  assert.deepEqual(seqs(rec), [2, 0, 3]);
  assert.equal(rec.requestSeqOf(3), 0);
  assert.equal(rec.requestSeqOf(4), 0);
});

test('a mark before the first sample is refused; a recording that keeps no samples takes marks without keeping them', () => {
  const rec = new Recording();
  rec.sink.onHello({ pid: 1, flags: 1, mono: 1, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' });
  assert.throws(() => rec.sink.onRequestSample(1, 4), (err: unknown) => err instanceof RecordingError && /REQUEST_SAMPLES record naming a sample 1 back, before the first/.test(err.message));
  const summed = new Recording({ keepSamples: false });
  new WireDecoder(summed.sink).push(requestFixtureStream());
  assert.equal(summed.hasRequestMarks, false);
  assert.equal(summed.sampleCount, 5);
});

test('a live recording that keeps only recent samples marks them by their index in the whole stream', () => {
  const bytes = requestFixtureStream();
  const rec = new Recording({ keepSamples: 'recent', restoreSamples: () => recordingFromStream([bytes]) });
  const decoder = new WireDecoder(rec.sink);
  // Up to the end of the first REQUEST: the first two samples and their marks are in, then let go.
  let half = 16;
  while (bytes[half + 4] !== RecordType.Request) half += 4 + new DataView(bytes.buffer, bytes.byteOffset + half).getUint32(0, true);
  half += 4 + new DataView(bytes.buffer, bytes.byteOffset + half).getUint32(0, true);
  decoder.push(bytes.subarray(0, half));
  assert.equal(rec.sampleCount, 2);
  rec.releaseSamples();
  decoder.push(bytes.subarray(half));
  rec.finish();
  assert.deepEqual(seqs(rec), [1, 1, 2, 0, 3]);
});
