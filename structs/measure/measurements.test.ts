import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WireDecoder } from '../wire/decoder.js';
import { WireEncoder } from '../wire/encoder.js';
import { parseHexText } from '../wire/hex-text.js';
import { Recording } from '../profile/recording.js';
import { MeasureReader } from './measurements.js';

const fixtureUrl = (name: string): URL => new URL(`../../../structs/wire/fixtures/${name}`, import.meta.url);

/** A whole wire stream: HELLO, the fixture's measuring records (framed as records), END. */
function streamWithFixtureRecords(): Uint8Array {
  const bytes = parseHexText(readFileSync(fixtureUrl('measure.hex'), 'utf8'));
  const view = new DataView(bytes.buffer);
  const enc = new WireEncoder().preamble().hello({ pid: 7, flags: 3, mono: 1, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.1.0' });
  for (let at = 0; at < bytes.length;) {
    const n = view.getUint32(at + 1, true);
    enc.raw(bytes[at], bytes.subarray(at + 5, at + 5 + n));
    at += 5 + n;
  }
  return enc.end({ mono: 5, reason: 0 }).bytes().slice();
}

test('the measuring records ride in a wire stream that the sample decoder reads untroubled', () => {
  const stream = streamWithFixtureRecords();
  const recording = new Recording();
  const decoder = new WireDecoder(recording.sink);
  const reader = new MeasureReader();
  // Odd chunk sizes: records straddle chunks.
  for (let at = 0; at < stream.length; at += 7) {
    const chunk = stream.subarray(at, Math.min(stream.length, at + 7));
    decoder.push(chunk);
    reader.push(chunk);
  }
  decoder.end();
  assert.equal(recording.meta?.pid, 7);
  const m = reader.measurements;
  assert.deepEqual(m.controlReady, { type: 'controlReady', controlVersion: 1, maxCommandBytes: 65536 });
  const [b, tail, unicode] = m.methods();
  assert.equal(b.name, 'Measure.Target.B');
  assert.equal(b.state, 'active');
  assert.equal(b.generic, true);
  assert.equal(b.calls, 3000);
  assert.equal(b.exceptions, 100);
  assert.equal(b.meanNs, 15000);
  assert.equal(b.threads.length, 2);
  assert.ok(b.p50Ns > 0 && b.p50Ns <= b.p99Ns && b.p99Ns <= b.maxNs);
  assert.equal(tail.state, 'refused');
  assert.match(tail.detail, /tail call/);
  assert.equal(unicode.name, 'Measure.Ünïcode.Méthode');
  assert.equal(unicode.asyncSynchronousPart, true);
  assert.equal(m.reply(7)?.matched, 2);
});
