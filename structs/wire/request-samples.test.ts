import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireDecoder, type WireSink } from './decoder.js';
import { WireEncoder } from './encoder.js';
import { RecordType, recordTypeName } from './records.js';

const hello = { pid: 1, flags: 0x13, mono: 1, unixNs: 0n, intervalNs: 1000, wallThreadsPerTick: 4, runtimeVersion: '', profilerVersion: '' };

/** A stream with one thread, task 7 and one stack, before any sample. */
function stream(): WireEncoder {
  return new WireEncoder().preamble().hello(hello)
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 5, name: '' })
    .function({ functionId: 1, kind: 2, name: 'f', module: '', file: '', moduleId: 0, token: 0 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 }).stack(1, 0, [1])
    .task({ taskId: 7, awaiterId: 0, nameId: 0 });
}

/** The side-record calls a decoder makes, as [callback, back, value]. */
function marks(bytes: Uint8Array): [string, number, number][] {
  const heard: [string, number, number][] = [];
  const sink = new Proxy({}, {
    get: (_t, name) => (['onRequestSample', 'onTaskSample', 'onOperationCount'].includes(String(name))
      ? (back: number, value: number) => heard.push([String(name), back, value]) : () => {}),
  }) as WireSink;
  new WireDecoder(sink).push(bytes);
  return heard;
}

function decodeError(bytes: Uint8Array): Error {
  try {
    marks(bytes);
  } catch (err) {
    return err as Error;
  }
  throw new Error('the stream decoded');
}

test('REQUEST_SAMPLES is type 0x17, named as PROTOCOL.md names it', () => {
  assert.equal(RecordType.RequestSamples, 0x17);
  assert.equal(recordTypeName(0x17), 'REQUEST_SAMPLES');
});

test('the writer sends REQUEST_SAMPLES behind its SAMPLES record and its TASK_SAMPLES and OPERATION_COUNTS, and the reader hands each mark over', () => {
  const enc = stream()
    .stackSample(10, 1, 1, 1, 0, 1, 0, 0, 3)
    .stackSample(11, 1, 1, 1, 0, 1, 7, 2)
    .stackSample(12, 1, 1, 1, 0, 1, 7, 0, 4)
    .stackSample(13, 1, 1, 1, 0, 1);
  const bytes = enc.bytes();
  // The records after the STACK: SAMPLES, TASK_SAMPLES, OPERATION_COUNTS, REQUEST_SAMPLES.
  const types: number[] = [];
  for (let p = 16; p < bytes.length;) {
    types.push(bytes[p + 4]);
    p += 4 + new DataView(bytes.buffer, bytes.byteOffset + p, 4).getUint32(0, true);
  }
  assert.deepEqual(types.slice(-4), [RecordType.Samples, RecordType.TaskSamples, RecordType.OperationCounts, RecordType.RequestSamples]);
  assert.deepEqual(marks(bytes), [
    ['onTaskSample', 3, 7], ['onTaskSample', 2, 7], ['onOperationCount', 3, 2],
    // Samples 0 and 2 of the four: 4 and 2 back from the last.
    ['onRequestSample', 4, 3], ['onRequestSample', 2, 4],
  ]);
  // Without task marks it follows the SAMPLES record itself.
  assert.deepEqual(marks(stream().stackSample(10, 1, 1, 1, 0, 1, 0, 0, 9).bytes()), [['onRequestSample', 1, 9]]);
});

test('a seq no REQUEST names (yet, or ever) is no forward reference: the reader takes it', () => {
  const bytes = stream().stackSample(10, 1, 1, 1, 0, 1).raw(RecordType.RequestSamples, [0, 0xff, 0xff, 0xff, 0xff, 0x0f]).bytes();
  assert.deepEqual(marks(bytes), [['onRequestSample', 1, 0xffffffff]]);
});

test('REQUEST_SAMPLES is corrupt away from its SAMPLES record, out of order, past the record, or naming seq 0', () => {
  const two = (): WireEncoder => stream().stackSample(10, 1, 1, 1, 0, 1).stackSample(11, 1, 1, 1, 0, 1);
  const stats = { mono: 12, samples: 2, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 };
  assert.match(decodeError(two().stats(stats).raw(RecordType.RequestSamples, [0, 1]).bytes()).message, /REQUEST_SAMPLES record at byte \d+ does not follow a SAMPLES record/);
  assert.match(decodeError(two().raw(RecordType.RequestSamples, [1, 1, 0, 1]).bytes()).message, /REQUEST_SAMPLES record at byte \d+ names sample 0 of a SAMPLES record of 2, out of order/);
  assert.match(decodeError(two().raw(RecordType.RequestSamples, [1, 1, 1, 2]).bytes()).message, /out of order/);
  assert.match(decodeError(two().raw(RecordType.RequestSamples, [2, 1]).bytes()).message, /sample 2 of a SAMPLES record of 2/);
  assert.match(decodeError(two().raw(RecordType.RequestSamples, [0, 0]).bytes()).message, /REQUEST_SAMPLES record at byte \d+ names request 0, outside 1\.\.2\^32-1/);
  // Nothing may come between: a second REQUEST_SAMPLES is not behind its SAMPLES record.
  assert.match(decodeError(two().raw(RecordType.RequestSamples, [0, 1]).raw(RecordType.RequestSamples, [1, 1]).bytes()).message, /does not follow a SAMPLES record/);
});
