import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { encodeMeasureCommand, encodeRevertCommand } from './control-commands.js';
import { parseHexText } from './hex-text.js';
import { decodeMeasureRecord, type MeasureRecord } from './measure-records.js';
import { WireFormatError } from './wire-format-error.js';

// Tests run from dist/structs/wire/; the fixtures stay in the source tree.
const fixtureUrl = (name: string): URL => new URL(`../../../structs/wire/fixtures/${name}`, import.meta.url);

/** fixtures/measure.hex: entries of u8 type, u32 body length, body. */
function entries(): { type: number; body: Uint8Array }[] {
  const bytes = parseHexText(readFileSync(fixtureUrl('measure.hex'), 'utf8'));
  const view = new DataView(bytes.buffer);
  const out: { type: number; body: Uint8Array }[] = [];
  for (let at = 0; at < bytes.length;) {
    const n = view.getUint32(at + 1, true);
    out.push({ type: bytes[at], body: bytes.subarray(at + 5, at + 5 + n) });
    at += 5 + n;
  }
  return out;
}

/** As the fixture JSON writes them: u64 values as decimal strings. */
function asFixtureJson(r: MeasureRecord): unknown {
  if (r.type !== 'measureFigures') return r;
  return {
    type: r.type, mono: String(r.mono), measureId: r.measureId, calls: String(r.calls), exceptions: String(r.exceptions),
    totalNs: String(r.totalNs), maxNs: String(r.maxNs), droppedCalls: String(r.droppedCalls),
    buckets: r.buckets.map(([b, c]) => [b, String(c)]),
    threads: r.threads.map((t) => ({ osTid: t.osTid, calls: String(t.calls), exceptions: String(t.exceptions), totalNs: String(t.totalNs) })),
  };
}

test('the measuring records of the shared fixture decode to its JSON', () => {
  const expected = JSON.parse(readFileSync(fixtureUrl('measure.json'), 'utf8')) as unknown[];
  const decoded = entries().map((e) => asFixtureJson(decodeMeasureRecord(e.type, e.body)));
  assert.deepEqual(decoded, expected);
});

test('a measuring record shorter than its fields is corrupt, with a sentence naming it', () => {
  const [, method] = entries();
  assert.throws(() => decodeMeasureRecord(method.type, method.body.subarray(0, 20), 1234), (err: unknown) => {
    assert.ok(err instanceof WireFormatError);
    assert.equal(err.message, 'Corrupt clrscope stream: the MEASURE_METHOD record at byte 1234 is shorter than its fields.');
    return true;
  });
});

test('control commands encode to the shared fixture byte for byte', () => {
  const expected = parseHexText(readFileSync(fixtureUrl('control.hex'), 'utf8'));
  const unknown = new Uint8Array([8, 0, 0, 0, 0x7e, 11, 0, 0, 0, 1, 2, 3]);
  const parts = [
    encodeMeasureCommand(7, 'Measure.Target.*'),
    encodeMeasureCommand(8, 'Measure.Target+Inner..ctor'),
    encodeRevertCommand(9, 2),
    encodeRevertCommand(10, 0),
    unknown,
  ];
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  assert.deepEqual(all, expected);
});
