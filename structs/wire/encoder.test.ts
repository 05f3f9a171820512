import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WireEncoder, encodeWireString } from './encoder.js';
import { parseHexText } from './hex-text.js';
import { DescriptorLoss, EndReason } from './records.js';

const fixtureUrl = (name: string): URL => new URL(`../../../structs/wire/fixtures/${name}`, import.meta.url);
const basicBytes = parseHexText(readFileSync(fixtureUrl('basic.hex'), 'utf8'));
const basicJson = JSON.parse(readFileSync(fixtureUrl('basic.json'), 'utf8')) as Record<string, unknown>[];

const big = (v: unknown): bigint => BigInt(v as string);
const num = (v: unknown): number => v as number;
const str = (v: unknown): string => v as string;

function encodeJsonRecord(enc: WireEncoder, r: Record<string, unknown>): void {
  switch (r.type) {
    case 'hello':
      enc.hello({ pid: num(r.pid), flags: num(r.flags), mono: big(r.mono), unixNs: big(r.unixNs), intervalNs: num(r.intervalNs), wallThreadsPerTick: num(r.wallThreadsPerTick), runtimeVersion: str(r.runtimeVersion), profilerVersion: str(r.profilerVersion) });
      break;
    case 'thread':
      enc.thread({ threadId: num(r.threadId), osTid: num(r.osTid), clrThreadId: big(r.clrThreadId), mono: big(r.mono), name: str(r.name) });
      break;
    case 'threadEnd':
      enc.threadEnd({ threadId: num(r.threadId), mono: big(r.mono) });
      break;
    case 'function':
      enc.function({ functionId: num(r.functionId), kind: num(r.kind), name: str(r.name), module: str(r.module), file: str(r.file), moduleId: num(r.moduleId), token: num(r.token) });
      break;
    case 'sample':
      if (r.stackId !== undefined) enc.stackSample(Number(r.mono), num(r.threadId), num(r.flags), Number(r.cpuNs), Number(r.wallNs), num(r.stackId));
      else enc.sample({ mono: big(r.mono), threadId: num(r.threadId), flags: num(r.flags), cpuNs: big(r.cpuNs), wallNs: big(r.wallNs), frames: r.frames as number[] });
      break;
    case 'module':
      enc.module({ moduleId: num(r.moduleId), kind: num(r.kind), mvid: str(r.mvid), path: str(r.path) });
      break;
    case 'frame':
      enc.frame({ frameId: num(r.frameId), functionId: num(r.functionId), offsetKind: num(r.offsetKind), offset: num(r.offset) });
      break;
    case 'stack':
      enc.stack(num(r.stackId), num(r.flags), r.frames as number[]);
      break;
    case 'stackReset':
      enc.stackReset();
      break;
    case 'string':
      enc.string(num(r.stringId), str(r.text));
      break;
    case 'event':
      enc.event({
        kind: num(r.kind), mono: big(r.mono), threadId: num(r.threadId), stackId: num(r.stackId), labelId: num(r.labelId), value1: big(r.value1),
        value2: (num(r.flags) & 1) !== 0 ? big(r.value2) : undefined,
      });
      break;
    case 'stats':
      enc.stats({ mono: big(r.mono), samples: big(r.samples), droppedRingFull: big(r.droppedRingFull), droppedBufferFull: big(r.droppedBufferFull), droppedWatchdog: big(r.droppedWatchdog), droppedOther: big(r.droppedOther) });
      break;
    case 'suspension':
      enc.suspension({ mono: big(r.mono), durationNs: big(r.durationNs), suspendNs: big(r.suspendNs), reason: num(r.reason), generation: num(r.generation), flags: num(r.flags) });
      break;
    case 'end':
      enc.end({ mono: big(r.mono), reason: num(r.reason) });
      break;
    default:
      assert.fail(`unexpected fixture record type ${String(r.type)}`);
  }
}

test('encoding suspensions.json yields suspensions.hex (v1) and suspensions-v2.hex byte for byte', () => {
  const v2 = new WireEncoder(8).preamble();
  for (const r of JSON.parse(readFileSync(fixtureUrl('suspensions.json'), 'utf8')) as Record<string, unknown>[]) encodeJsonRecord(v2, r);
  assert.deepEqual(v2.bytes(), parseHexText(readFileSync(fixtureUrl('suspensions-v2.hex'), 'utf8')));
  const enc = new WireEncoder(8).preamble(1);
  const records = JSON.parse(readFileSync(fixtureUrl('suspensions.json'), 'utf8')) as Record<string, unknown>[];
  for (const r of records) encodeJsonRecord(enc, r);
  assert.deepEqual(enc.bytes(), parseHexText(readFileSync(fixtureUrl('suspensions.hex'), 'utf8')));
});

test('encoding approximate-cpu.json yields approximate-cpu.hex byte for byte (v1)', () => {
  const enc = new WireEncoder(8).preamble(1);
  const records = JSON.parse(readFileSync(fixtureUrl('approximate-cpu.json'), 'utf8')) as Record<string, unknown>[];
  for (const r of records) encodeJsonRecord(enc, r);
  assert.deepEqual(enc.bytes(), parseHexText(readFileSync(fixtureUrl('approximate-cpu.hex'), 'utf8')));
});

test('encoding basic-v2.json (plus the raw 0x42 record) yields basic-v2.hex byte for byte', () => {
  const json = JSON.parse(readFileSync(fixtureUrl('basic-v2.json'), 'utf8')) as Record<string, unknown>[];
  const expected = parseHexText(readFileSync(fixtureUrl('basic-v2.hex'), 'utf8'));
  const enc = new WireEncoder(8).preamble();
  json.forEach((r, i) => {
    // The fixture's unknown record follows STATS and is not in the JSON.
    if (i > 0 && json[i - 1].type === 'stats') enc.raw(0x42, [1, 2, 3]);
    encodeJsonRecord(enc, r);
  });
  const out = enc.bytes();
  const firstDiff = out.findIndex((b, i) => b !== expected[i]);
  assert.equal(firstDiff, -1, `first differing byte at ${firstDiff}`);
  assert.equal(out.length, expected.length);
});

test('encoding basic.json (plus the raw 0x42 record) yields basic.hex byte for byte (v1)', () => {
  const enc = new WireEncoder(8).preamble(1);
  basicJson.forEach((r, i) => {
    // The fixture's unknown record follows STATS (index 9) and is not in the JSON.
    if (i === 10) enc.raw(0x42, [1, 2, 3]);
    encodeJsonRecord(enc, r);
  });
  const out = enc.bytes();
  assert.equal(out.length, basicBytes.length);
  const firstDiff = out.findIndex((b, i) => b !== basicBytes[i]);
  assert.equal(firstDiff, -1, `first differing byte at ${firstDiff}`);
});

test('u64 accepts integer numbers (above 2^53 the double they are) and bigints alike, and rejects the rest', () => {
  const a = new WireEncoder().end({ mono: 0x0102030405, reason: 2 }).bytes();
  const b = new WireEncoder().end({ mono: 0x0102030405n, reason: 2 }).bytes();
  assert.deepEqual(Array.from(a), [10, 0, 0, 0, 0x7f, 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 2]);
  assert.deepEqual(b, a);
  assert.deepEqual(new WireEncoder().end({ mono: 2 ** 60, reason: 0 }).bytes(), new WireEncoder().end({ mono: 2n ** 60n, reason: 0 }).bytes());
  assert.throws(() => new WireEncoder().end({ mono: 2 ** 64, reason: 0 }), RangeError);
  assert.throws(() => new WireEncoder().end({ mono: -1, reason: 0 }), RangeError);
  assert.throws(() => new WireEncoder().end({ mono: 1.5, reason: 0 }), RangeError);
});

test('strings are cut to 65,535 bytes on a UTF-8 character boundary, as writers must', () => {
  // 'é' is two bytes, so 32,768 of them (65,536 bytes) cannot be cut at 65,535.
  const cut = encodeWireString('é'.repeat(32_768));
  assert.equal(cut.length, 65_534);
  assert.equal(new TextDecoder('utf-8', { fatal: true }).decode(cut), 'é'.repeat(32_767));
  assert.equal(encodeWireString('a'.repeat(70_000)).length, 65_535);
  assert.equal(encodeWireString('ok').length, 2);
});

test('a v1 sample encodes its frames leaf first after the fixed fields', () => {
  const out = new WireEncoder().preamble(1).sample({ mono: 1, threadId: 2, flags: 3, cpuNs: 4, wallNs: 5, frames: new Uint32Array([0xdeadbeef, 7]) }).bytes();
  assert.deepEqual(Array.from(out.subarray(16)), [
    40, 0, 0, 0, 5,
    1, 0, 0, 0, 0, 0, 0, 0,
    2, 0, 0, 0,
    3,
    4, 0, 0, 0, 0, 0, 0, 0,
    5, 0, 0, 0, 0, 0, 0, 0,
    2, 0,
    0xef, 0xbe, 0xad, 0xde, 7, 0, 0, 0,
  ]);
  assert.throws(() => new WireEncoder().sample({ mono: 1, threadId: 2, flags: 3, cpuNs: 4, wallNs: 5, frames: new Uint32Array(65_536) }), RangeError);
});

test('the buffer grows past its initial capacity without losing bytes', () => {
  const enc = new WireEncoder(16);
  for (let i = 0; i < 1000; i++) enc.threadEnd({ threadId: i, mono: i * 3 });
  const out = enc.bytes();
  assert.equal(out.length, 17_000);
  const view = new DataView(out.buffer, out.byteOffset);
  assert.equal(view.getUint32(999 * 17 + 5, true), 999);
  assert.equal(view.getUint32(999 * 17 + 9, true), 2997);
});

test('v2 sample() defines each frame and each distinct stack once, then names the stack', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 1, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' })
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 0, name: '' })
    .function({ functionId: 7, kind: 0, name: 'A', module: '/x/A.dll', file: '' })
    .function({ functionId: 8, kind: 0, name: 'B', module: '/x/A.dll', file: '' });
  const start = enc.byteLength;
  enc.sample({ mono: 100, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [7, 8] });
  enc.sample({ mono: 100, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [7, 8] });
  enc.sample({ mono: 200, threadId: 1, flags: 1 | 4, cpuNs: 5, wallNs: 0, frames: [7, 8] });
  const out = enc.bytes().subarray(start);
  // FRAME 7, FRAME 8, STACK 1 [7,8], STACK 2 (incomplete, both frames shared), then one SAMPLES
  // record: definitions go out ahead of the record being filled.
  const types: number[] = [];
  for (let p = 0; p < out.length;) {
    types.push(out[p + 4]);
    p += 4 + (out[p] | (out[p + 1] << 8));
  }
  assert.deepEqual(types, [0x0a, 0x0a, 0x0b, 0x0b, 0x0d]);
  assert.deepEqual(Array.from(out.subarray(out.length - 9 - 17)), [
    5, 0, 0, 0, 0x0b, 2, 4, 2, 0, // STACK id 2, flags 4, shares 2, 0 new
    13, 0, 0, 0, 0x0d,
    0x09, 0xc8, 0x01, 1, 5, // thread next|cpu, mono +100 (zigzag 200: two bytes), stack 1, cpu 5
    0x35, 5, // thread, mono and stack the same: head and cpu
    0x05, 0xc8, 0x01, 2, 5, // stack 2
  ]);
  // One MODULE for the two functions of one file, before them.
  const all = enc.bytes();
  const allTypes: number[] = [];
  for (let p = 16; p < all.length; p += 4 + (all[p] | (all[p + 1] << 8))) allTypes.push(all[p + 4]);
  assert.deepEqual(allTypes.slice(0, 5), [0x01, 0x02, 0x09, 0x04, 0x04]);
  assert.equal(allTypes.filter((t) => t === 0x09).length, 1);
});

test('takeBytes hands the bytes over and keeps the stream state for what follows', () => {
  const enc = new WireEncoder(64).preamble().hello({ pid: 1, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' })
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 0, name: '' })
    .function({ functionId: 1, kind: 2, name: 'f', module: '', file: '' })
    .sample({ mono: 100, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [1] });
  // Without `close` the SAMPLES record being filled stays: only whole records are handed over.
  const first = enc.takeBytes();
  assert.equal(first[first.length - 10 + 4], 0x0b, 'the last whole record is the 10-byte STACK');
  enc.sample({ mono: 101, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [1] });
  assert.equal(enc.takeBytes().length, 0);
  const second = enc.takeBytes(true);
  // One SAMPLES record: thread next, mono 100, stack 1, cpu 5; then same thread, same stack: head, mono delta, cpu.
  assert.deepEqual(Array.from(second), [9, 0, 0, 0, 0x0d, 0x09, 0xc8, 0x01, 1, 5, 0x25, 2, 5]);
});

test('END of a lost connection appends the descriptor and how, byte for byte as the C++ writer does', () => {
  const lost = new WireEncoder().end({ mono: 1000, reason: EndReason.ConnectionLost, descriptor: 803, descriptorLoss: DescriptorLoss.Replaced }).bytes();
  assert.deepEqual([...lost], [0x0f, 0x00, 0x00, 0x00, 0x7f, 0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x23, 0x03, 0x00, 0x00, 0x02]);
  assert.equal(new WireEncoder().end({ mono: 1000, reason: EndReason.RuntimeShutdown }).bytes().length, 14);
});
