import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Function as PprofFunction, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { fromPprof } from './from-pprof.js';

/** One location listing `lines` inlined lines of one function, named by `rows` samples. */
function lineBomb(lines: number, rows: number): Uint8Array {
  const st = new StringTable();
  return new Profile({
    sampleType: [new ValueType({ type: st.dedup('samples'), unit: st.dedup('count') })],
    function: [new PprofFunction({ id: 1, name: st.dedup('Bomb.Inlined') })],
    location: [new Location({ id: 1, line: Array.from({ length: lines }, () => new Line({ functionId: 1 })) })],
    sample: Array.from({ length: rows }, () => new Sample({ locationId: [1], value: [1] })),
    stringTable: st,
  }).encode();
}

test('a location of many inlined lines named by many rows is refused by the frames it would make, before any is built', () => {
  // 140 KB asking for 65,536 × 1,000 = 65.5 M frames: each row used to build them all.
  const bytes = lineBomb(65_536, 1000);
  assert.ok(bytes.length < 300_000, `${bytes.length} bytes`);
  const started = performance.now();
  assert.throws(() => fromPprof(bytes), (err: Error) => err.name === 'PprofFormatError'
    && /^Not a readable pprof profile: its samples' stacks \(each location's inlined lines counted\) would hold more than 32,000,000 frames in all, the most clrscope reads of one file\.$/.test(err.message));
  assert.ok(performance.now() - started < 2000);
});

test('a row counted many times walks its stack once', () => {
  const st = new StringTable();
  const bytes = new Profile({
    sampleType: [new ValueType({ type: st.dedup('samples'), unit: st.dedup('count') })],
    function: [new PprofFunction({ id: 1, name: st.dedup('Deep') })],
    location: [new Location({ id: 1, line: Array.from({ length: 60_000 }, () => new Line({ functionId: 1 })) })],
    sample: [new Sample({ locationId: [1], value: [1_000_000] })],
    stringTable: st,
  }).encode();
  // 60,000 frames × 1,000,000 samples would be 60 G frames walked; it is 60,000.
  const started = performance.now();
  const rec = fromPprof(bytes);
  assert.equal(rec.sampleCount, 1_000_000);
  assert.equal(rec.stackCount, 1);
  assert.ok(performance.now() - started < 5000);
});
