// EventCounters payloads as .NET 10.0.12's System.Runtime writes them (field lists as its
// metadata describes them, observed in a live session), read field by field.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteWriter } from './byte-writer.js';
import { counterFields, readEventCounter, readFieldLayout, type FieldLayout } from './event-counters.js';
import { NettraceFormatError } from './nettrace-format-error.js';
import { SpanReader } from './span-reader.js';

const STRING = 18;
const DOUBLE = 14;
const SINGLE = 13;
const INT32 = 9;
const OBJECT = 1;

const f64 = (v: number): Uint8Array => { const b = new Uint8Array(8); new DataView(b.buffer).setFloat64(0, v, true); return b; };
const f32 = (v: number): Uint8Array => { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); return b; };

const MEAN_FIELDS: [number, string][] = [
  [STRING, 'Name'], [STRING, 'DisplayName'], [DOUBLE, 'Mean'], [DOUBLE, 'StandardDeviation'], [INT32, 'Count'], [DOUBLE, 'Min'],
  [DOUBLE, 'Max'], [SINGLE, 'IntervalSec'], [STRING, 'Series'], [STRING, 'CounterType'], [STRING, 'Metadata'], [STRING, 'DisplayUnits'],
];
const SUM_FIELDS: [number, string][] = [
  [STRING, 'Name'], [STRING, 'DisplayName'], [STRING, 'DisplayRateTimeScale'], [DOUBLE, 'Increment'], [SINGLE, 'IntervalSec'],
  [STRING, 'Metadata'], [STRING, 'Series'], [STRING, 'CounterType'], [STRING, 'DisplayUnits'],
];

/** The V1 field list the runtime writes: one unnamed object holding the object "Payload". */
function layoutBytes(fields: [number, string][]): Uint8Array {
  const w = new ByteWriter();
  w.i32(1).i32(OBJECT); // one field: an object…
  w.i32(1).i32(OBJECT); // …holding one field, an object…
  w.i32(fields.length);
  for (const [tc, name] of fields) w.i32(tc).utf16z(name);
  w.utf16z('Payload'); // …named Payload
  w.utf16z(''); // the outer object has no name
  return w.take();
}

const reader = (bytes: Uint8Array): SpanReader => new SpanReader(bytes, 1000, 'test payload');

function layoutOf(fields: [number, string][]): FieldLayout[] {
  return readFieldLayout(reader(layoutBytes(fields)));
}

test('the field list is read as the nested objects it describes', () => {
  const layout = layoutOf(SUM_FIELDS);
  assert.equal(layout.length, 1);
  assert.equal(layout[0].name, '');
  assert.equal(layout[0].typeCode, OBJECT);
  assert.equal(layout[0].fields?.[0].name, 'Payload');
  assert.deepEqual(counterFields(layout)?.map((f) => [f.typeCode, f.name]), SUM_FIELDS);
});

test('a field count is held to the bytes left: a field takes 6 bytes at least', () => {
  // Three Int32 fields with empty names: 4 + 3 × 6 bytes, exactly enough.
  const tight = new ByteWriter().i32(3);
  for (let i = 0; i < 3; i++) tight.i32(INT32).utf16z('');
  assert.deepEqual(readFieldLayout(reader(tight.take())).map((f) => [f.typeCode, f.name]), [[INT32, ''], [INT32, ''], [INT32, '']]);
  // A count of four over the same bytes cannot be: refused before reading a field.
  const over = new ByteWriter().i32(4);
  for (let i = 0; i < 3; i++) over.i32(INT32).utf16z('');
  assert.deepEqual(readFieldLayout(reader(over.take())), []);
});

test('a mean counter: Name, DisplayName, Mean … DisplayUnits', () => {
  const payload = new ByteWriter().utf16z('gc-heap-size').utf16z('GC Heap Size').append(f64(0.825784)).append(f64(0)).i32(1)
    .append(f64(0.825784)).append(f64(0.825784)).append(f32(0.9993892)).utf16z('Interval=1000').utf16z('Mean').utf16z('').utf16z('MB').take();
  const c = readEventCounter(reader(payload), layoutOf(MEAN_FIELDS), 'System.Runtime', 12345);
  assert.deepEqual({ ...c, intervalSec: Number(c?.intervalSec.toFixed(4)) }, {
    provider: 'System.Runtime', name: 'gc-heap-size', displayName: 'GC Heap Size', displayUnits: 'MB', kind: 'mean', value: 0.825784, intervalSec: 0.9994, timestamp: 12345,
  });
});

test('an incrementing counter: the increment over the interval is the value', () => {
  const payload = new ByteWriter().utf16z('gen-0-gc-count').utf16z('Gen 0 GC Count').utf16z('00:00:01').append(f64(50))
    .append(f32(1)).utf16z('').utf16z('Interval=1000').utf16z('Sum').utf16z('').take();
  const c = readEventCounter(reader(payload), layoutOf(SUM_FIELDS), 'System.Runtime', 1);
  assert.equal(c?.kind, 'sum');
  assert.equal(c?.value, 50);
  assert.equal(c?.intervalSec, 1);
  assert.equal(c?.displayUnits, '');
});

test('payloads clrscope cannot read are skipped, not misread', () => {
  // A type code without a fixed size (19, an array in format 5's V2 lists) stops the read.
  const odd = layoutOf([[STRING, 'Name'], [19, 'Values'], [DOUBLE, 'Mean']]);
  assert.equal(readEventCounter(reader(new ByteWriter().utf16z('x').take()), odd, 'P', 0), undefined);
  // No Name, or no value.
  const noName = new ByteWriter().utf16z('').utf16z('').utf16z('').append(f64(1)).append(f32(1)).utf16z('').utf16z('').utf16z('Sum').utf16z('').take();
  assert.equal(readEventCounter(reader(noName), layoutOf(SUM_FIELDS), 'P', 0), undefined);
  // A negative or impossible field count reads as no fields.
  assert.deepEqual(readFieldLayout(reader(new ByteWriter().i32(-1).take())), []);
  assert.deepEqual(readFieldLayout(reader(new ByteWriter().i32(1000).i32(1).take())), []);
});

test('a payload cut short is a format error naming the byte', () => {
  const payload = new ByteWriter().utf16z('gen-0-gc-count').utf16z('Gen 0 GC Count').utf16z('00:00:01').take();
  assert.throws(() => readEventCounter(reader(payload), layoutOf(SUM_FIELDS), 'P', 0), (err: unknown) => {
    assert.ok(err instanceof NettraceFormatError);
    assert.match(err.message, /ends at byte \d+, before the 8 bytes it needs/);
    return true;
  });
});
