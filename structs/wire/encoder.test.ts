import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WireEncoder, encodeWireString } from './encoder.js';
import { parseHexText } from './hex-text.js';

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
      enc.function({ functionId: num(r.functionId), kind: num(r.kind), name: str(r.name), module: str(r.module), file: str(r.file) });
      break;
    case 'sample':
      enc.sample({ mono: big(r.mono), threadId: num(r.threadId), flags: num(r.flags), cpuNs: big(r.cpuNs), wallNs: big(r.wallNs), frames: r.frames as number[] });
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

test('encoding suspensions.json yields suspensions.hex byte for byte', () => {
  const enc = new WireEncoder(8).preamble();
  const records = JSON.parse(readFileSync(fixtureUrl('suspensions.json'), 'utf8')) as Record<string, unknown>[];
  for (const r of records) encodeJsonRecord(enc, r);
  assert.deepEqual(enc.bytes(), parseHexText(readFileSync(fixtureUrl('suspensions.hex'), 'utf8')));
});

test('encoding approximate-cpu.json yields approximate-cpu.hex byte for byte', () => {
  const enc = new WireEncoder(8).preamble();
  const records = JSON.parse(readFileSync(fixtureUrl('approximate-cpu.json'), 'utf8')) as Record<string, unknown>[];
  for (const r of records) encodeJsonRecord(enc, r);
  assert.deepEqual(enc.bytes(), parseHexText(readFileSync(fixtureUrl('approximate-cpu.hex'), 'utf8')));
});

test('encoding basic.json (plus the raw 0x42 record) yields basic.hex byte for byte', () => {
  const enc = new WireEncoder(8).preamble();
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

test('u64 accepts safe-integer numbers and bigints alike and rejects unsafe numbers', () => {
  const a = new WireEncoder().end({ mono: 0x0102030405, reason: 2 }).bytes();
  const b = new WireEncoder().end({ mono: 0x0102030405n, reason: 2 }).bytes();
  assert.deepEqual(Array.from(a), [10, 0, 0, 0, 0x7f, 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 2]);
  assert.deepEqual(b, a);
  assert.throws(() => new WireEncoder().end({ mono: 2 ** 53, reason: 0 }), RangeError);
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

test('a sample encodes its frames leaf first after the fixed fields', () => {
  const out = new WireEncoder().sample({ mono: 1, threadId: 2, flags: 3, cpuNs: 4, wallNs: 5, frames: new Uint32Array([0xdeadbeef, 7]) }).bytes();
  assert.deepEqual(Array.from(out), [
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
