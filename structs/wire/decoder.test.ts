import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WireDecoder, type WireSink } from './decoder.js';
import { WireEncoder } from './encoder.js';
import { parseHexText } from './hex-text.js';
import { EventKind, RecordType } from './records.js';
import type { TimelineKind, TimelineRecord } from './timeline/timeline-kind.js';
import { WireFormatError } from './wire-format-error.js';

// Tests run from dist/structs/wire/; the fixtures stay in the source tree.
const fixtureUrl = (name: string): URL => new URL(`../../../structs/wire/fixtures/${name}`, import.meta.url);
const basicBytes = parseHexText(readFileSync(fixtureUrl('basic.hex'), 'utf8'));
const basicJson = JSON.parse(readFileSync(fixtureUrl('basic.json'), 'utf8')) as Record<string, unknown>[];

type Json = Record<string, unknown>;

/** Renders every callback as the fixture JSON does (u64 as decimal strings). */
class JsonSink implements WireSink {
  readonly records: Json[] = [];
  readonly unknown: { type: number; length: number; index: number }[] = [];
  readonly frameArrays: Uint32Array[] = [];
  onHello(r: Parameters<WireSink['onHello']>[0]): void {
    this.records.push({ type: 'hello', pid: r.pid, flags: r.flags, mono: String(r.mono), unixNs: String(r.unixNs), intervalNs: r.intervalNs, wallThreadsPerTick: r.wallThreadsPerTick, runtimeVersion: r.runtimeVersion, profilerVersion: r.profilerVersion });
  }
  onThread(r: Parameters<WireSink['onThread']>[0]): void {
    this.records.push({ type: 'thread', threadId: r.threadId, osTid: r.osTid, clrThreadId: String(r.clrThreadId), mono: String(r.mono), name: r.name });
  }
  onThreadEnd(r: Parameters<WireSink['onThreadEnd']>[0]): void {
    this.records.push({ type: 'threadEnd', threadId: r.threadId, mono: String(r.mono) });
  }
  onFunction(r: Parameters<WireSink['onFunction']>[0]): void {
    this.records.push({ type: 'function', functionId: r.functionId, kind: r.kind, name: r.name, module: r.module, file: r.file, moduleId: r.moduleId, token: r.token });
  }
  onModule(r: Parameters<WireSink['onModule']>[0]): void {
    this.records.push({ type: 'module', moduleId: r.moduleId, kind: r.kind, mvid: r.mvid, path: r.path });
  }
  onFrame(r: Parameters<WireSink['onFrame']>[0]): void {
    this.records.push({ type: 'frame', frameId: r.frameId, functionId: r.functionId, offsetKind: r.offsetKind, offset: r.offset });
  }
  onStack(stackId: number, flags: number, frames: Uint32Array): void {
    this.records.push({ type: 'stack', stackId, flags, frames: Array.from(frames) });
  }
  onStackReset(): void {
    this.records.push({ type: 'stackReset' });
  }
  onString(r: Parameters<WireSink['onString']>[0]): void {
    this.records.push({ type: 'string', stringId: r.stringId, text: r.text });
  }
  onStackSample(threadId: number, flags: number, stackId: number, values: Float64Array): void {
    this.records.push({ type: 'sample', mono: String(values[0]), threadId, flags, cpuNs: String(values[1]), wallNs: String(values[2]), stackId });
  }
  onEvent(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void {
    this.records.push({ type: 'event', kind, flags, mono: String(mono), threadId, stackId, labelId, value1: String(value1), value2: String(value2) });
  }
  onSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, frames: Uint32Array): void {
    this.frameArrays.push(frames);
    this.records.push({ type: 'sample', mono: String(mono), threadId, flags, cpuNs: String(cpuNs), wallNs: String(wallNs), frames: Array.from(frames) });
  }
  onTask(r: Parameters<WireSink['onTask']>[0]): void {
    this.records.push({ type: 'task', taskId: r.taskId, awaiterId: r.awaiterId, nameId: r.nameId });
  }
  onTaskSample(back: number, taskId: number): void {
    this.records.push({ type: 'taskSample', back, taskId });
  }
  onOperationCount(back: number, count: number): void {
    this.records.push({ type: 'operationCount', back, count });
  }
  onRequestSample(back: number, seq: number): void {
    this.records.push({ type: 'requestSample', back, seq });
  }
  onRequestBackfill(back: number, seq: number): void {
    this.records.push({ type: 'requestBackfill', back, seq });
  }
  onEventMessage(back: number, stringId: number): void {
    this.records.push({ type: 'eventMessage', back, stringId });
  }
  onStats(r: Parameters<WireSink['onStats']>[0]): void {
    this.records.push({ type: 'stats', mono: String(r.mono), samples: String(r.samples), droppedRingFull: String(r.droppedRingFull), droppedBufferFull: String(r.droppedBufferFull), droppedWatchdog: String(r.droppedWatchdog), droppedOther: String(r.droppedOther), ...(r.cost !== undefined ? { cost: Object.fromEntries(Object.entries(r.cost).map(([k, v]) => [k, String(v)])) } : {}) });
  }
  onTimeline(kind: TimelineKind, r: TimelineRecord): void {
    // u64 fields as strings, as the fixtures' JSON has them.
    const fields = Object.fromEntries(kind.fields.map((f) => [f.key, f.type === 'u64' ? String(r[f.key]) : r[f.key]]));
    this.records.push({ type: kind.dumpName, ...fields });
  }
  onEnd(r: Parameters<WireSink['onEnd']>[0]): void {
    this.records.push({ type: 'end', mono: String(r.mono), reason: r.reason });
  }
  onUnknown(type: number, length: number): void {
    this.unknown.push({ type, length, index: this.records.length });
  }
}

function decodeChunks(chunks: Uint8Array[]): { sink: JsonSink; decoder: WireDecoder } {
  const sink = new JsonSink();
  const decoder = new WireDecoder(sink);
  for (const c of chunks) decoder.push(c);
  return { sink, decoder };
}

function assertBasic(sink: JsonSink, decoder: WireDecoder, how: string): void {
  assert.deepEqual(sink.records, basicJson, how);
  // The 0x42 record sits between STATS (record index 9) and the THREAD rename.
  assert.deepEqual(sink.unknown, [{ type: 0x42, length: 4, index: 10 }], how);
  assert.deepEqual(decoder.end(), { midRecord: false, offset: 578, totalBytes: 578 }, how);
}

test('suspensions.hex decodes to suspensions.json, whole and byte by byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('suspensions.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('suspensions.json'), 'utf8')) as Record<string, unknown>[];
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
  const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(decodeChunks(single).sink.records, expected);
});

test('approximate-cpu.hex decodes to approximate-cpu.json: HELLO flag bit 3 is an ordinary flag bit', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('approximate-cpu.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('approximate-cpu.json'), 'utf8')) as Record<string, unknown>[];
  assert.equal(bytes.length, 16 + 61 + 14);
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
});

test('a SUSPENSION body shorter than its fields is corrupt', () => {
  const bytes = withHello().raw(0x07, new Uint8Array(26)).bytes();
  assert.match(decodeError(bytes).message, /SUSPENSION/);
});

/** Decodes `bytes` expecting a WireFormatError; returns it. */
function decodeError(bytes: Uint8Array, chunkSize = bytes.length): WireFormatError {
  const decoder = new WireDecoder(new JsonSink());
  try {
    for (let i = 0; i < bytes.length; i += chunkSize) decoder.push(bytes.subarray(i, i + chunkSize));
  } catch (err) {
    assert.ok(err instanceof WireFormatError, `expected WireFormatError, got ${String(err)}`);
    return err;
  }
  assert.fail('the stream decoded without error');
}

const hello = { pid: 1, flags: 3, mono: 5, unixNs: 7n, intervalNs: 10, wallThreadsPerTick: 4, runtimeVersion: 'r', profilerVersion: 'p' };
const withHello = (): WireEncoder => new WireEncoder().preamble().hello(hello);
const withHelloV1 = (): WireEncoder => new WireEncoder().preamble(1).hello(hello);
const HELLO_END = 16 + 4 + 1 + 32 + 5 + 5; // preamble + HELLO record above

test('fixture is the 578 bytes the hex text spells', () => {
  assert.equal(basicBytes.length, 578);
  assert.deepEqual(Array.from(basicBytes.subarray(0, 16)), [0x43, 0x4c, 0x52, 0x53, 0x43, 0x4f, 0x50, 0x45, 1, 0, 16, 0, 0, 0, 0, 0]);
});

test('decodes basic.hex fed whole', () => {
  const { sink, decoder } = decodeChunks([basicBytes]);
  assertBasic(sink, decoder, 'whole');
});

test('decodes basic.hex fed one byte at a time', () => {
  const chunks = Array.from(basicBytes, (_, i) => basicBytes.subarray(i, i + 1));
  const { sink, decoder } = decodeChunks(chunks);
  assertBasic(sink, decoder, 'bytewise');
});

test('decodes basic.hex split in two at every offset', () => {
  for (let cut = 0; cut <= basicBytes.length; cut++) {
    const { sink, decoder } = decodeChunks([basicBytes.subarray(0, cut), basicBytes.subarray(cut)]);
    assertBasic(sink, decoder, `split at ${cut}`);
  }
});

test('decodes basic.hex from unaligned copies in three-way splits', () => {
  // Copies at odd byteOffsets make sure nothing assumes 4-byte alignment of the chunk.
  for (let a = 1; a < basicBytes.length; a += 7) {
    for (let b = a; b < basicBytes.length; b += 13) {
      const parts = [basicBytes.slice(0, a), basicBytes.slice(a, b), basicBytes.slice(b)].map((p) => {
        const host = new Uint8Array(p.length + 3);
        host.set(p, 3);
        return host.subarray(3);
      });
      const { sink, decoder } = decodeChunks(parts);
      assertBasic(sink, decoder, `split at ${a},${b}`);
    }
  }
});

test('end() reports a stream cut inside the preamble or a record, naming where that record began', () => {
  const boundaries = [0, 16, 73, 114, 157, 200, 237, 321, 369, 405, 453, 506, 514, 547, 564, 578];
  for (let cut = 1; cut < basicBytes.length; cut++) {
    const { decoder } = decodeChunks([basicBytes.subarray(0, cut)]);
    const state = decoder.end();
    const startOfPartial = boundaries.filter((b) => b <= cut).pop() ?? 0;
    if (boundaries.includes(cut)) {
      assert.deepEqual(state, { midRecord: false, offset: cut, totalBytes: cut }, `cut ${cut}`);
    } else {
      assert.deepEqual(state, { midRecord: true, offset: startOfPartial, totalBytes: cut }, `cut ${cut}`);
    }
  }
  assert.deepEqual(decodeChunks([]).decoder.end(), { midRecord: false, offset: 0, totalBytes: 0 });
});

test('onSample hands out one reused view per depth: valid only during the call', () => {
  const bytes = withHelloV1()
    .thread({ threadId: 1, osTid: 2, clrThreadId: 3, mono: 4, name: '' })
    .sample({ mono: 10, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [7, 8] })
    .sample({ mono: 11, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [9, 10] })
    .sample({ mono: 12, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [11, 12, 13] })
    .bytes();
  const { sink } = decodeChunks([bytes]);
  assert.deepEqual(sink.records.slice(2).map((r) => r.frames), [[7, 8], [9, 10], [11, 12, 13]]);
  assert.equal(sink.frameArrays[0], sink.frameArrays[1], 'same depth, same view object');
  assert.deepEqual(Array.from(sink.frameArrays[0]), [11, 12], 'the view now shows the last sample\'s leaf frames');
  assert.equal(sink.frameArrays[0].buffer, sink.frameArrays[2].buffer, 'all views share the scratch buffer');
});

test('u64 fields are exact below 2^53 and rounded to the nearest double above; unixNs keeps all 64 bits', () => {
  const bytes = new WireEncoder().preamble()
    .hello({ ...hello, mono: 2n ** 53n - 1n, unixNs: 2n ** 64n - 1n })
    .thread({ threadId: 1, osTid: 2, clrThreadId: 2n ** 53n + 1n, mono: 2n ** 64n - 1n, name: '' })
    .bytes();
  const { sink } = decodeChunks([bytes]);
  assert.equal(sink.records[0].mono, String(2 ** 53 - 1));
  assert.equal(sink.records[0].unixNs, String(2n ** 64n - 1n));
  assert.equal(sink.records[1].clrThreadId, String(2 ** 53), '2^53+1 rounds to even');
  assert.equal(sink.records[1].mono, String(2 ** 64));
});

test('ignores bytes appended to a known record body and skips an extended preamble', () => {
  const preamble = [0x43, 0x4c, 0x52, 0x53, 0x43, 0x4f, 0x50, 0x45, 1, 0, 20, 0, 0, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd];
  const bytes = new WireEncoder().rawBytes(preamble)
    .raw(0x03, [5, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0xee, 0xee])
    .end({ mono: 1, reason: 1 })
    .bytes();
  for (let size = 1; size <= bytes.length; size++) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    const { sink, decoder } = decodeChunks(chunks);
    assert.deepEqual(sink.records, [{ type: 'threadEnd', threadId: 5, mono: '9' }, { type: 'end', mono: '1', reason: 1 }], `chunk ${size}`);
    assert.equal(decoder.end().midRecord, false);
  }
  const cut = decodeChunks([bytes.subarray(0, 18)]).decoder.end();
  assert.deepEqual(cut, { midRecord: true, offset: 0, totalBytes: 18 });
});

test('bad magic is rejected at byte 0, even when it arrives a byte at a time', () => {
  const bytes = new WireEncoder().preamble().bytes();
  bytes[3] = 0x78;
  for (const size of [16, 1]) {
    const err = decodeError(bytes, size);
    assert.equal(err.offset, 0);
    assert.equal(err.message, 'Not a clrscope stream: the first 8 bytes at byte 0 are not the magic "CLRSCOPE".');
  }
});

test('an unknown version is rejected naming the versions it knows and the byte', () => {
  const err = decodeError(new WireEncoder().preamble(3).bytes());
  assert.equal(err.offset, 8);
  assert.equal(err.message, 'Unsupported clrscope stream version 3 at byte 8; this reader understands versions 1 and 2.');
});

test('a preamble size below 16 is rejected', () => {
  const bytes = new WireEncoder().preamble().bytes();
  bytes[10] = 12;
  const err = decodeError(bytes);
  assert.equal(err.offset, 10);
  assert.match(err.message, /^Corrupt clrscope stream: the preamble at byte 0 declares a size of 12 bytes/);
});

test('a record length above 1 MiB is rejected as soon as its length field is complete', () => {
  const bytes = withHello().rawBytes([0x01, 0x00, 0x10, 0x00, 0x05]).bytes();
  for (const size of [bytes.length, 1, 3]) {
    const err = decodeError(bytes, size);
    assert.equal(err.offset, HELLO_END);
    assert.equal(err.message, `Corrupt clrscope stream: the record at byte ${HELLO_END} declares a length of 1048577 bytes, more than the 1 MiB (1048576) limit.`);
  }
  // Exactly 1 MiB is legal: a skipped unknown record of that size decodes.
  const big = withHello().raw(0x55, new Uint8Array(1_048_575)).bytes();
  const { sink } = decodeChunks([big.subarray(0, 100), big.subarray(100)]);
  assert.deepEqual(sink.unknown, [{ type: 0x55, length: 1_048_576, index: 1 }]);
});

test('a record length of 0 is rejected', () => {
  const err = decodeError(withHello().rawBytes([0, 0, 0, 0]).bytes());
  assert.equal(err.message, `Corrupt clrscope stream: the record at byte ${HELLO_END} declares a length of 0, too short to hold its type byte.`);
});

test('a string longer than 65,535 bytes is rejected at the string', () => {
  // FUNCTION id 1 kind 0, then a name whose length field says 65,536.
  const body = [1, 0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00, ...new Array<number>(65_536 + 8).fill(0x41)];
  const err = decodeError(withHelloV1().raw(0x04, body).bytes());
  assert.equal(err.offset, HELLO_END + 10);
  assert.equal(err.message, `Corrupt clrscope stream: the string at byte ${HELLO_END + 10} in the FUNCTION record at byte ${HELLO_END} is 65536 bytes long, more than the 65535 allowed.`);
});

test('a string running past its record body is rejected', () => {
  const err = decodeError(withHello().raw(0x02, [1, 0, 0, 0, 2, 0, 0, 0, ...new Array<number>(16).fill(0), 9, 0, 0, 0, 0x61, 0x62]).bytes());
  assert.equal(err.message, `Corrupt clrscope stream: the string at byte ${HELLO_END + 29} in the THREAD record at byte ${HELLO_END} claims 9 bytes but the record body has only 2 left.`);
});

test('a FUNCTION body that ends before its last string length is rejected', () => {
  // 17 bytes, the fixed minimum, but the 1-byte name pushes the file's length field past the end.
  const err = decodeError(withHelloV1().raw(0x04, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0]).bytes());
  assert.equal(err.offset, HELLO_END + 19);
  assert.equal(err.message, `Corrupt clrscope stream: the FUNCTION record at byte ${HELLO_END} ends at byte ${HELLO_END + 22}, before the string length it needs at byte ${HELLO_END + 19}.`);
});

test('every known record type with a body shorter than its fixed fields is rejected, in v1 and v2', () => {
  const v1: [number, string, number][] = [
    [0x01, 'HELLO', 40], [0x02, 'THREAD', 28], [0x03, 'THREAD_END', 12], [0x04, 'FUNCTION', 17],
    [0x05, 'SAMPLE', 31], [0x06, 'STATS', 48], [0x7f, 'END', 9],
  ];
  const v2: [number, string, number][] = [
    [0x01, 'HELLO', 40], [0x02, 'THREAD', 28], [0x03, 'THREAD_END', 12], [0x04, 'FUNCTION', 21], [0x06, 'STATS', 48],
    [0x07, 'SUSPENSION', 27], [0x09, 'MODULE', 25], [0x0a, 'FRAME', 13], [0x0b, 'STACK', 4], [0x0e, 'STRING', 8], [0x7f, 'END', 9],
  ];
  for (const [version, type, name, need] of [...v1.map((c) => [1, ...c] as const), ...v2.map((c) => [2, ...c] as const)]) {
    // HELLO is tested as the first record, the rest after a valid HELLO.
    const enc = type === 0x01 ? new WireEncoder().preamble(version) : new WireEncoder().preamble(version).hello(hello);
    const at = type === 0x01 ? 16 : HELLO_END;
    const err = decodeError(enc.raw(type, new Array<number>(need - 1).fill(0)).bytes());
    assert.equal(err.offset, at, name);
    assert.equal(err.message, `Corrupt clrscope stream: the ${name} record at byte ${at} has a ${need - 1}-byte body, shorter than the ${need} bytes its fields need.`);
  }
});

test('a SAMPLE whose frameCount needs more bytes than its body has is rejected, across chunks too', () => {
  const good = withHelloV1().sample({ mono: 1, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [1, 2, 3] }).bytes();
  const bad = good.slice();
  bad[HELLO_END + 4 + 1 + 29] = 4; // frameCount 3 -> 4 with the body unchanged
  for (const size of [bad.length, 5]) {
    const err = decodeError(bad, size);
    assert.equal(err.message, `Corrupt clrscope stream: the SAMPLE record at byte ${HELLO_END} has a 43-byte body, shorter than the 47 bytes its fields need.`);
  }
});

test('after an error the decoder refuses more data; sink errors propagate and recordOffset names the record', () => {
  const bytes = withHello().end({ mono: 1, reason: 0 }).bytes();
  const sink = new JsonSink();
  sink.onEnd = () => { throw new Error('sink says no'); };
  const decoder = new WireDecoder(sink);
  assert.throws(() => decoder.push(bytes), /sink says no/);
  assert.equal(decoder.recordOffset, HELLO_END);
  assert.throws(() => decoder.push(new Uint8Array(1)), (err: unknown) => err instanceof WireFormatError && /accepts no more data/.test(err.message));
});

// ---- wire v2 ----

const basicV2Bytes = parseHexText(readFileSync(fixtureUrl('basic-v2.hex'), 'utf8'));
const basicV2Json = JSON.parse(readFileSync(fixtureUrl('basic-v2.json'), 'utf8')) as Record<string, unknown>[];

function assertBasicV2(sink: JsonSink, decoder: WireDecoder, how: string): void {
  assert.deepEqual(sink.records, basicV2Json, how);
  assert.deepEqual(sink.unknown, [{ type: 0x42, length: 4, index: basicV2Json.findIndex((r) => r.type === 'stats') + 1 }], how);
  assert.deepEqual(decoder.end(), { midRecord: false, offset: 925, totalBytes: 925 }, how);
  assert.equal(decoder.version, 2, how);
}

test('basic-v2.hex is 925 bytes and decodes to basic-v2.json whole, byte by byte and split at every offset', () => {
  assert.equal(basicV2Bytes.length, 925);
  const whole = decodeChunks([basicV2Bytes]);
  assertBasicV2(whole.sink, whole.decoder, 'whole');
  const bytewise = decodeChunks(Array.from(basicV2Bytes, (_, i) => basicV2Bytes.subarray(i, i + 1)));
  assertBasicV2(bytewise.sink, bytewise.decoder, 'bytewise');
  for (let cut = 0; cut <= basicV2Bytes.length; cut++) {
    const { sink, decoder } = decodeChunks([basicV2Bytes.subarray(0, cut), basicV2Bytes.subarray(cut)]);
    assertBasicV2(sink, decoder, `split at ${cut}`);
  }
});

test('suspensions-v2.hex (v1 but for the version) decodes to suspensions.json', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('suspensions-v2.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('suspensions.json'), 'utf8')) as Record<string, unknown>[];
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
});

/** A v2 stream with thread 1 and function/frame 1, then a SAMPLES record with `body` verbatim. */
function v2WithSamples(body: number[]): Uint8Array {
  return withHello().thread({ threadId: 1, osTid: 2, clrThreadId: 3, mono: 4, name: '' })
    .function({ functionId: 1, kind: 2, name: 'f', module: '', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1])
    .raw(0x0d, body)
    .bytes();
}

test('malformed samples in a SAMPLES record are rejected with one sentence naming the record', () => {
  const cases: [number[], RegExp][] = [
    [[0x80], /a sample in the SAMPLES record at byte \d+ has the reserved head bit 7 set\.$/],
    [[0x0c], /has thread code 3, which no version defines\.$/],
    [[0x38], /reuses the previous stack of thread 1, which has none\.$/],
    [[0x18, 0], /names stack 0, outside 1\.\.16777215\.$/],
    [[0x18, 0x80, 0x80, 0x80, 0x80, 0x08], /names stack 2147483648, outside 1\.\.16777215\.$/],
    [[0x58, 1], /predicts a wall value for a sample without one\.$/],
    [[0x08, 0x03, 1], /has a time before 0\.$/],
    [[0x09, 2, 1, 0x80], /the SAMPLES record at byte \d+ ends at byte \d+, inside a field\.$/],
    [[0x19, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], /has a number at byte \d+ longer than 64 bits\.$/],
  ];
  for (const [body, message] of cases) {
    const err = decodeError(v2WithSamples(body));
    assert.match(err.message, message, JSON.stringify(body));
    assert.match(err.message, /^Corrupt clrscope stream: /);
  }
});

test('a version 1 SAMPLE in a version 2 stream is rejected', () => {
  const bytes = withHello().raw(0x05, new Array<number>(31).fill(0)).bytes();
  assert.equal(decodeError(bytes).message, `Corrupt clrscope stream: the record at byte ${HELLO_END} is a version 1 SAMPLE in a version 2 stream.`);
});

test('a STACK that shares more frames than the previous STACK has, or names id 0, is rejected', () => {
  const shares = withHello().raw(0x0b, [1, 0, 2, 0]).bytes();
  assert.match(decodeError(shares).message, /the STACK record at byte \d+ shares 2 frames with the previous STACK, which has 0\.$/);
  const zero = withHello().raw(0x0b, [0, 0, 0, 0]).bytes();
  assert.match(decodeError(zero).message, /the STACK record at byte \d+ has id 0, outside 1\.\.16777215\.$/);
});

test('times above 2^53 ns stay exact relative to each other: each is rounded once, nothing drifts', () => {
  // mono starts at 2^55 (spacing of doubles: 8) and steps by 1 ns; a decoder adding deltas to a
  // rounded double would never move off 2^55.
  const varint = (v: bigint): number[] => {
    const out: number[] = [];
    while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
    out.push(Number(v));
    return out;
  };
  const base = 2n ** 55n;
  const body = [0x09, ...varint(2n * base), 1, 1];  // thread 1, mono 2^55, stack 1, cpu 1
  for (let i = 1; i < 40; i++) body.push(0x25, 2, 1);  // same thread, mono +1, same stack, cpu 1
  const { sink } = decodeChunks([v2WithSamples(body)]);
  const monos = sink.records.filter((r) => r.type === 'sample').map((r) => r.mono);
  assert.deepEqual(monos, Array.from({ length: 40 }, (_, i) => String(Number(base + BigInt(i)))));
  assert.notEqual(monos[39], monos[0]);
});

test('sample state spans records and chunks; THREAD_END and STACK_RESET clear what they say', () => {
  const enc = withHello().thread({ threadId: 1, osTid: 2, clrThreadId: 3, mono: 4, name: '' })
    .function({ functionId: 1, kind: 2, name: 'f', module: '', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1]);
  enc.stackSample(1000, 1, 2, 0, 10, 1);
  enc.raw(0x42, []);  // any record closes the SAMPLES record
  enc.stackSample(1010, 1, 2, 0, 10, 1);  // same stack, wall predicted: two bytes
  enc.threadEnd({ threadId: 1, mono: 1020 });
  const before = enc.byteLength;
  enc.stackSample(1030, 1, 2, 0, 20, 1);  // after THREAD_END: stack and wall coded again
  const bytes = enc.bytes();
  const { sink } = decodeChunks(Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => bytes.subarray(3 * i, 3 * i + 3)));
  const samples = sink.records.filter((r) => r.type === 'sample');
  assert.deepEqual(samples.map((r) => [r.mono, r.wallNs, r.stackId]), [['1000', '10', 1], ['1010', '10', 1], ['1030', '20', 1]]);
  const afterEnd = bytes.subarray(before);
  assert.deepEqual(Array.from(afterEnd), [5, 0, 0, 0, 0x0d, 0x06, 40, 1, 40], 'head thread-same|wall, mono +20, stack 1, wall field zigzag(20)');
});

test('async-v2.hex (TASK, TASK_SAMPLES) decodes to async-v2.json, whole and byte by byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('async-v2.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('async-v2.json'), 'utf8')) as Record<string, unknown>[];
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
  const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(decodeChunks(single).sink.records, expected);
});

test('operations-v2.hex (OPERATION_COUNTS) decodes to operations-v2.json, whole and byte by byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('operations-v2.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('operations-v2.json'), 'utf8')) as Record<string, unknown>[];
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
  const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(decodeChunks(single).sink.records, expected);
});

test('event-messages-v2.hex (EVENT_MESSAGES) decodes to event-messages-v2.json, whole and byte by byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('event-messages-v2.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('event-messages-v2.json'), 'utf8')) as Record<string, unknown>[];
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
  const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(decodeChunks(single).sink.records, expected);
});

test('the encoder writes operations-v2.hex byte for byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('operations-v2.hex'), 'utf8'));
  const e = new WireEncoder().preamble()
    .hello({ pid: 4242, flags: 0x13, mono: 1_000_000_000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.4.0' })
    .thread({ threadId: 1, osTid: 0, clrThreadId: 0, mono: 1_000_000_100, name: '[async operations]' })
    .function({ functionId: 1, kind: 2, name: '[suspended]', module: '', file: '', moduleId: 0, token: 0 })
    .function({ functionId: 2, kind: 2, name: '[awaiting Task.Delay]', module: '', file: '', moduleId: 0, token: 0 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .frame({ frameId: 2, functionId: 2, offsetKind: 0, offset: 0 })
    .string(1, '<Service>d__1').string(2, '<Handler>d__0')
    .task({ taskId: 3, awaiterId: 0, nameId: 2 }).task({ taskId: 5, awaiterId: 3, nameId: 1 }).task({ taskId: 9, awaiterId: 0, nameId: 2 })
    .stack(1, 0, [2, 1]).stack(2, 0, [1])
    .stackSample(1_010_000_000, 1, 2, 0, 30_000_000, 1, 5, 3)
    .stackSample(1_010_000_000, 1, 2, 0, 7_000_000, 2, 9);
  const first = e.takeBytes(true);
  e.stackSample(1_020_000_000, 1, 2, 0, 20_000_000, 1, 5, 2).end({ mono: 1_030_000_000, reason: 0 });
  assert.deepEqual([...first, ...e.bytes()], Array.from(bytes));
});

test('an OPERATION_COUNTS record anywhere but right after TASK_SAMPLES, or counting 0, is corrupt', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('operations-v2.hex'), 'utf8'));
  // The first OPERATION_COUNTS record (03 00 00 00 12 00 03): its count made 0, then the record moved before its TASK_SAMPLES.
  const at = bytes.findIndex((b, i) => b === 0x12 && bytes[i - 4] === 3 && bytes[i + 1] === 0 && bytes[i + 2] === 3);
  assert.ok(at > 0);
  const zero = bytes.slice();
  zero[at + 2] = 0;
  assert.throws(() => decodeChunks([zero]), /OPERATION_COUNTS record at byte \d+ counts 0 operations/);
  const marks = bytes.findIndex((b, i) => i < at && b === 0x11 && bytes[i - 4] === 5);
  const moved = new Uint8Array([...bytes.subarray(0, marks - 4), ...bytes.subarray(at - 4, at + 3), ...bytes.subarray(marks - 4, at - 4), ...bytes.subarray(at + 3)]);
  assert.throws(() => decodeChunks([moved]), /OPERATION_COUNTS record at byte \d+ does not follow a TASK_SAMPLES record/);
});

test('the encoder writes event-messages-v2.hex byte for byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('event-messages-v2.hex'), 'utf8'));
  const exception = { kind: EventKind.Exception, threadId: 1, stackId: 1, labelId: 1, value1: 1 };
  const e = new WireEncoder().preamble()
    .hello({ pid: 4242, flags: 3, mono: 1_000_000_000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.3.0' })
    .thread({ threadId: 1, osTid: 4243, clrThreadId: 0x1000, mono: 1_000_000_100, name: 'throw-mix' })
    .function({ functionId: 1, kind: 0, name: 'Demo.ThrowMix.Argument', module: '', file: '', moduleId: 0, token: 0x06000004 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .string(1, 'System.ArgumentException').string(2, 'clrscope test')
    .stack(1, 0, [1])
    .event({ ...exception, mono: 1_010_000_000, messageId: 2 })
    .event({ ...exception, mono: 1_020_000_000 })
    .string(3, 'key \u00e9 7')
    .event({ ...exception, mono: 1_030_000_000, messageId: 3 })
    .event({ kind: EventKind.Exception, threadId: 0, stackId: 0, labelId: 1, value1: 5, mono: 1_040_000_000 })
    .end({ mono: 1_050_000_000, reason: 0 });
  assert.deepEqual(Array.from(e.bytes()), Array.from(bytes));
});

test('an EVENT_MESSAGES record must follow an EVENTS record and name its events and defined strings', () => {
  const start = (): WireEncoder => new WireEncoder().preamble()
    .hello({ pid: 1, flags: 3, mono: 1, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.3.0' })
    .thread({ threadId: 1, osTid: 2, clrThreadId: 3, mono: 1, name: 't' })
    .string(1, 'System.Exception');
  const alone = start().raw(RecordType.EventMessages, Uint8Array.of(0, 1)).bytes();
  assert.throws(() => decodeChunks([alone]), /EVENT_MESSAGES record at byte \d+ does not follow an EVENTS record/);
  const past = start().event({ kind: EventKind.Exception, mono: 2, threadId: 1, stackId: 0, labelId: 1, value1: 1 }).raw(RecordType.EventMessages, Uint8Array.of(1, 1)).bytes();
  assert.throws(() => decodeChunks([past]), /names event 1 of an EVENTS record of 1/);
  const zero = start().event({ kind: EventKind.Exception, mono: 2, threadId: 1, stackId: 0, labelId: 1, value1: 1 }).raw(RecordType.EventMessages, Uint8Array.of(0, 0)).bytes();
  assert.throws(() => decodeChunks([zero]), /names string 0/);
});

test('the encoder writes async-v2.hex byte for byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('async-v2.hex'), 'utf8'));
  const e = new WireEncoder().preamble()
    .hello({ pid: 4242, flags: 0x13, mono: 1_000_000_000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.3.0' })
    .thread({ threadId: 1, osTid: 4243, clrThreadId: 0x1000, mono: 1_000_000_100, name: 'pool' })
    .function({ functionId: 1, kind: 0, name: 'Demo.Program+<Inner>d__2.MoveNext', module: '', file: '', moduleId: 0, token: 0x06000003 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .string(1, '<Inner>d__2').string(2, '<Middle>d__1').string(3, '<Outer>d__0')
    .task({ taskId: 3, awaiterId: 0, nameId: 3 }).task({ taskId: 5, awaiterId: 3, nameId: 2 }).task({ taskId: 7, awaiterId: 5, nameId: 1 })
    .stack(1, 0, [1])
    .stackSample(1_010_000_000, 1, 1, 10_000_000, 0, 1, 7)
    .stackSample(1_020_000_000, 1, 1, 10_000_000, 0, 1)
    .stackSample(1_030_000_000, 1, 1, 10_000_000, 0, 1, 7)
    .task({ taskId: 7, awaiterId: 3, nameId: 1 }, true)
    .stackSample(1_040_000_000, 1, 1, 10_000_000, 0, 1, 7)
    .end({ mono: 1_050_000_000, reason: 0 });
  assert.deepEqual(Array.from(e.bytes()), Array.from(bytes));
});

test('a file without TASK records (written before them) decodes with no task callbacks', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('basic-v2.hex'), 'utf8'));
  const records = decodeChunks([bytes]).sink.records;
  assert.ok(records.some((r) => r.type === 'sample'));
  assert.ok(!records.some((r) => r.type === 'task' || r.type === 'taskSample'));
});

test('TASK_SAMPLES is corrupt away from its SAMPLES record, out of order, past the record, or naming task 0', () => {
  const stream = (): WireEncoder => withHello()
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 5, name: '' })
    .function({ functionId: 1, kind: 2, name: 'f', module: '', file: '', moduleId: 0, token: 0 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 }).stack(1, 0, [1])
    .stackSample(10, 1, 1, 1, 0, 1).stackSample(11, 1, 1, 1, 0, 1);
  assert.match(decodeError(stream().stats({ mono: 12, samples: 2, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 }).raw(0x11, [0, 1]).bytes()).message, /does not follow a SAMPLES record/);
  assert.match(decodeError(stream().raw(0x11, [1, 1, 0, 1]).bytes()).message, /out of order/);
  assert.match(decodeError(stream().raw(0x11, [2, 1]).bytes()).message, /sample 2 of a SAMPLES record of 2/);
  assert.match(decodeError(stream().raw(0x11, [0, 0]).bytes()).message, /task 0/);
  assert.match(decodeError(stream().raw(0x10, [1, 0, 0, 0]).bytes()).message, /TASK record .* shorter/);
});

test('an END of a lost connection carries the descriptor and how; a 9-byte END carries neither', () => {
  const ends: Parameters<WireSink['onEnd']>[0][] = [];
  const sink = Object.assign(new JsonSink(), { onEnd: (r: Parameters<WireSink['onEnd']>[0]) => { ends.push(r); } });
  const hello = { pid: 1, flags: 1, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: '' };
  new WireDecoder(sink).push(new WireEncoder().preamble().hello(hello).end({ mono: 1000, reason: 4, descriptor: 803, descriptorLoss: 2 }).bytes());
  new WireDecoder(sink).push(new WireEncoder().preamble().hello(hello).end({ mono: 1000, reason: 0 }).bytes());
  assert.deepEqual(ends, [{ mono: 1000, reason: 4, descriptor: 803, descriptorLoss: 2 }, { mono: 1000, reason: 0 }]);
});

const STATS_COST = {
  processCpuNs: 2_000_000_000, handlerNs: 11_000_000, callbacksNs: 2_000_000, runtimeEventsNs: 3_000_000,
  eventStacksNs: 4_000_000, symbolsNs: 5_000_000, writerNs: 6_000_000, samplerNs: 7_000_000,
};

function statsCostStream(): WireEncoder {
  return new WireEncoder().preamble()
    .hello({ pid: 7, flags: 3, mono: 1_000_000_000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.4.0' })
    .stats({ mono: 1_500_000_000, samples: 7, droppedRingFull: 1, droppedBufferFull: 2, droppedWatchdog: 0, droppedOther: 5, cost: STATS_COST })
    .end({ mono: 1_600_000_000, reason: 0 });
}

test('stats-cost-v2.hex (STATS with clrscope\'s own cost) decodes to stats-cost-v2.json, whole and byte by byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('stats-cost-v2.hex'), 'utf8'));
  const expected = JSON.parse(readFileSync(fixtureUrl('stats-cost-v2.json'), 'utf8')) as Record<string, unknown>[];
  assert.deepEqual(decodeChunks([bytes]).sink.records, expected);
  const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(decodeChunks(single).sink.records, expected);
});

test('the encoder writes stats-cost-v2.hex byte for byte', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('stats-cost-v2.hex'), 'utf8'));
  assert.deepEqual(Array.from(statsCostStream().bytes()), Array.from(bytes));
});
