import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { CountersPoint } from '../../api/contract.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { WireDecoder, type WireSink } from '../../wire/decoder.js';
import { WireEncoder } from '../../wire/encoder.js';
import { parseHexText } from '../../wire/hex-text.js';
import { COUNTERS_RECORD_TYPE, decodeCountersBody, encodeCountersBody } from './counters-record.js';
import { openRecording } from './open-recording.js';
import { RecordTap } from './record-tap.js';

const wireFixture = (name: string): URL => new URL(`../../../../structs/wire/fixtures/${name}`, import.meta.url);
const bytes = parseHexText(readFileSync(wireFixture('counters.hex'), 'utf8'));
const points = JSON.parse(readFileSync(wireFixture('counters.json'), 'utf8')) as CountersPoint[];

test('counters.hex opens to the points of counters.json', () => {
  const opened = openRecording(bytes);
  assert.deepEqual(opened.counters, points);
  assert.equal(opened.recording.end?.reason, 0);
});

test('the encoder writes the fixture bodies byte for byte (the first point; the second has an appended field)', () => {
  const enc = new WireEncoder().rawBytes(bytes.subarray(0, 16 + 57)).raw(COUNTERS_RECORD_TYPE, encodeCountersBody(points[0]));
  assert.deepEqual(enc.bytes(), bytes.subarray(0, 16 + 57 + 88));
});

test('a wire reader that does not know COUNTERS skips it by its length (the profiler-side decoder)', () => {
  const unknown: [number, number][] = [];
  const sink: WireSink = {
    onHello: () => {}, onThread: () => {}, onThreadEnd: () => {}, onFunction: () => {}, onSample: () => {},
    onModule: () => {}, onFrame: () => {}, onStack: () => {}, onStackReset: () => {}, onString: () => {},
    onStackSample: () => {}, onEvent: () => {},
    onTask: () => {}, onTaskSample: () => {}, onOperationCount: () => {}, onRequestSample: () => {}, onRequestBackfill: () => {}, onEventMessage: () => {}, onStats: () => {}, onTimeline: () => {}, onEnd: () => {},
    onUnknown: (type, length) => unknown.push([type, length]),
  };
  const decoder = new WireDecoder(sink);
  decoder.push(bytes);
  assert.deepEqual(unknown, [[0x08, 84], [0x08, 43]]);
  assert.equal(recordingFromStream([bytes]).end?.mono, 3_000_000_000);
});

test('the tap finds the same bodies however the bytes are split, past a longer preamble', () => {
  const longer = new Uint8Array(bytes.length + 5);
  longer.set(bytes.subarray(0, 16));
  longer[10] = 21; // preambleSize 21: five bytes of a later revision's fields
  longer.set(bytes.subarray(16), 21);
  for (const [stream, skip] of [[bytes, 0], [longer, 5]] as const) {
    for (const size of [1, 2, 3, 5, 7, 64, stream.length]) {
      const seen: [number, number][] = [];
      const tap = new RecordTap(COUNTERS_RECORD_TYPE, (body, offset) => seen.push([offset, body.length]));
      for (let i = 0; i < stream.length; i += size) tap.push(stream.subarray(i, i + size));
      assert.deepEqual(seen, [[73 + skip, 83], [161 + skip, 42]], `chunks of ${size}`);
    }
  }
});

test('bodies that break the record are refused with one sentence', () => {
  assert.throws(() => decodeCountersBody(new Uint8Array(11), 100), { message: /^Corrupt clrscope file: the COUNTERS record at byte 100 has a 11-byte body, shorter than the 12 bytes its fields need\.$/ });
  const long = new Uint8Array(12);
  new DataView(long.buffer).setUint32(8, 5, true);
  assert.throws(() => decodeCountersBody(long, 7), { message: /claims a 5-byte string but its body has only 0 left/ });
  const notSections = encodeCountersBody({ timeMs: 1, values: {} });
  const arr = new Uint8Array(12 + 7);
  arr.set(notSections.subarray(0, 8));
  new DataView(arr.buffer).setUint32(8, 7, true);
  arr.set(new TextEncoder().encode('{"a":1}'), 12);
  assert.throws(() => decodeCountersBody(arr, 0), { message: /not an object of sections of numbers/ });
  assert.throws(() => encodeCountersBody({ timeMs: -1, values: {} }), RangeError);
  assert.throws(() => encodeCountersBody({ timeMs: 1, values: { big: { ['x'.repeat(70_000)]: 1 } } }), /more than the 65535/);
});
