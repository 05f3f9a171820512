import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { StreamFeed } from './stream-feed.js';

const bytes = streamFromCollapsed(`
  main;Main;Work;Hot 10
  main;Main;Work;Cold 5
  worker;Start;Wait 3
`, { end: true });

function feedAll(feed: StreamFeed, chunks: [number, Uint8Array][]): (string | null)[] {
  return chunks.map(([offset, chunk]) => feed.push(offset, chunk));
}

test('chunks in order, split anywhere, decode to the whole recording', () => {
  for (const size of [1, 7, 64, bytes.length]) {
    const feed = new StreamFeed();
    for (let at = 0; at < bytes.length; at += size) assert.equal(feed.push(at, bytes.slice(at, at + size)), null);
    assert.equal(feed.recording.sampleCount, 3);
    assert.ok(feed.recording.end !== undefined);
    assert.equal(feed.bytesReceived, bytes.length);
    assert.equal(feed.error, null);
  }
});

test('a chunk that repeats bytes already seen is decoded only from the first new byte', () => {
  const feed = new StreamFeed();
  const third = Math.floor(bytes.length / 3);
  const results = feedAll(feed, [
    [0, bytes.slice(0, 2 * third)],
    [third, bytes.slice(third, 2 * third + 10)], // half old, ten new bytes
    [0, bytes.slice(0, 2 * third + 10)], // entirely old: ignored
    [third, bytes.slice(third)], // overlaps, then the rest
  ]);
  assert.deepEqual(results, [null, null, null, null]);
  assert.equal(feed.bytesReceived, bytes.length);
  assert.equal(feed.recording.sampleCount, 3);
  assert.ok(feed.recording.end !== undefined);
});

test('a gap stops the stream with one sentence, reported once; what was decoded stays', () => {
  const feed = new StreamFeed();
  const cut = bytes.length - 30;
  assert.equal(feed.push(0, bytes.slice(0, cut)), null);
  const samples = feed.recording.sampleCount;
  const message = feed.push(cut + 5, bytes.slice(cut + 5));
  assert.equal(message, `Bytes ${cut} to ${cut + 4} of the stream never reached the worker; it stops reading at byte ${cut}.`);
  assert.equal(feed.error, message);
  assert.equal(feed.push(cut, bytes.slice(cut)), null);
  assert.equal(feed.recording.sampleCount, samples);
});

test('corruption is reported with the decoder\'s sentence', () => {
  const bad = new Uint8Array(bytes);
  bad[0] = 0x58;
  const feed = new StreamFeed();
  assert.equal(feed.push(0, bad), 'Not a clrscope stream: the first 8 bytes at byte 0 are not the magic "CLRSCOPE".');
  assert.equal(feed.push(bad.length, new Uint8Array(4)), null);
});

test('a record the Recording rejects is named by its stream offset', () => {
  const enc = new WireEncoder().preamble().hello({
    pid: 1, flags: 3, mono: 1, unixNs: 1n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '',
  });
  enc.stack(1, 4, []);
  const at = enc.byteLength;
  enc.stackSample(2, 9, 1, 1, 0, 1);
  const feed = new StreamFeed();
  assert.equal(feed.push(0, enc.bytes().slice()), `Corrupt clrscope stream: the record at byte ${at} is a SAMPLE naming thread 9, which no THREAD record defined.`);
});
