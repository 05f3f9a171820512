// REQUEST_BACKFILL (PROTOCOL.md): samples sent before the profiler knew their request (one begun
// outside any async chain, followed from its end), named by how far back in the stream they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireDecoder, type WireSink } from './decoder.js';
import { WireEncoder } from './encoder.js';
import { RecordType, recordTypeName } from './records.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';

const hello = { pid: 1, flags: 0x13, mono: 1, unixNs: 0n, intervalNs: 1000, wallThreadsPerTick: 4, runtimeVersion: '', profilerVersion: '' };

function stream(samples: number): WireEncoder {
  const enc = new WireEncoder().preamble().hello(hello)
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 5, name: '' })
    .function({ functionId: 1, kind: 2, name: 'f', module: '', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 }).stack(1, 0, [1]);
  for (let i = 0; i < samples; i++) enc.stackSample(10 + i, 1, 1, 1, 0, 1);
  return enc;
}

function heard(bytes: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  const sink = new Proxy({}, {
    get: (_t, name) => (name === 'onRequestBackfill' ? (back: number, seq: number) => out.push([back, seq]) : () => {}),
  }) as WireSink;
  new WireDecoder(sink).push(bytes);
  return out;
}

function decodeError(bytes: Uint8Array): string {
  try {
    heard(bytes);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the stream decoded');
}

test('REQUEST_BACKFILL is type 0x1A, named as PROTOCOL.md names it', () => {
  assert.equal(RecordType.RequestBackfill, 0x1a);
  assert.equal(recordTypeName(0x1a), 'REQUEST_BACKFILL');
});

test('the writer sends the bytes the profiler sends (wire_writer_test.cpp), and the reader hands each sample over', () => {
  // Four samples, then samples 2 and 4 of them (ordinals from 1) for request 5: 3 and 1 back.
  const bytes = stream(4).requestBackfill(5, [3, 1]).bytes();
  const tail = Array.from(bytes.subarray(bytes.length - 11));
  assert.deepEqual(tail, [7, 0, 0, 0, 0x1a, 5, 0, 0, 0, 3, 1]);
  assert.deepEqual(heard(bytes), [[3, 5], [1, 5]]);
  // Back counts across SAMPLES records: the whole stream's samples.
  const rec = recordingFromStream([stream(4).requestBackfill(5, [3, 1]).stackSample(20, 1, 1, 1, 0, 1, 0, 0, 6).end({ mono: 30, reason: 0 }).bytes()]);
  assert.deepEqual(Array.from({ length: rec.sampleCount }, (_, i) => rec.requestSeqOf(i)), [0, 5, 0, 5, 6]);
  assert.ok(rec.hasRequestMarks);
});

test('REQUEST_BACKFILL is corrupt naming request 0, a sample not sent, sample 0 back, or samples out of order', () => {
  assert.match(decodeError(stream(2).raw(RecordType.RequestBackfill, [0, 0, 0, 0, 1]).bytes()), /REQUEST_BACKFILL record at byte \d+ names request 0/);
  assert.match(decodeError(stream(2).raw(RecordType.RequestBackfill, [1, 0, 0, 0, 3]).bytes()), /names a sample 3 back of the 2 sent/);
  assert.match(decodeError(stream(2).raw(RecordType.RequestBackfill, [1, 0, 0, 0, 0]).bytes()), /names a sample 0 back/);
  assert.match(decodeError(stream(2).raw(RecordType.RequestBackfill, [1, 0, 0, 0, 1, 2]).bytes()), /out of order/);
  assert.match(decodeError(stream(2).raw(RecordType.RequestBackfill, [1, 0]).bytes()), /shorter than its 4-byte seq/);
});
