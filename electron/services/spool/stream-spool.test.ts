import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecording } from '../../../structs/formats/clrscope-file/open-recording.js';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { EndReason } from '../../../structs/wire/records.js';
import { StreamSpool } from './stream-spool.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-spool-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Feeds `bytes` in chunks of 1, 7, 300, 2 ... bytes, as a socket might deliver them. */
function spoolOf(bytes: Uint8Array): StreamSpool {
  const spool = StreamSpool.create(dir, `s${++n}.clrscope`);
  const sizes = [1, 7, 300, 2, 13];
  for (let p = 0, i = 0; p < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    spool.push(bytes.subarray(p, p + size));
    p += size;
  }
  return spool;
}

/** Samples in the records of `stream` that end within its first `length` bytes (records: u32 length, then that many bytes, after the 16-byte preamble). */
function samplesInWholeRecords(stream: Uint8Array, length: number): number {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  let end = 16;
  while (end + 4 <= length && end + 4 + view.getUint32(end, true) <= length) end += 4 + view.getUint32(end, true);
  return recordingFromStream([stream.subarray(0, end)]).sampleCount;
}

const cpu = (bytes: Uint8Array): string => toCollapsed(openRecording(bytes).recording, { metric: 'cpu' });

test('the spool file is the stream with a SPOOLED record after the preamble, mode 0600, and opens as the stream does', () => {
  const stream = fixtureStream();
  const spool = spoolOf(stream);
  assert.equal(spool.finish(undefined), true);
  const bytes = readFileSync(spool.path);
  assert.equal(statSync(spool.path).mode & 0o777, 0o600);
  assert.equal(bytes.length, stream.length + 5);
  assert.deepEqual([...bytes.subarray(16, 21)], [1, 0, 0, 0, 0x30]);
  const opened = openRecording(bytes).recording;
  assert.equal(opened.cut, false);
  assert.equal(cpu(bytes), toCollapsed(recordingFromStream([stream]), { metric: 'cpu' }));
});

test('a spool cut inside a record (its writer killed) opens as cut with every whole record; a saved file cut so is refused', () => {
  const stream = fixtureStream({ end: false });
  const spool = spoolOf(stream);
  spool.close();
  // Cut inside the last SAMPLES record: what a kill during write(2) can leave.
  const whole = recordingFromStream([stream]);
  const size = statSync(spool.path).size;
  truncateSync(spool.path, size - 20);
  const opened = openRecording(readFileSync(spool.path)).recording;
  assert.equal(opened.cut, true);
  const kept = samplesInWholeRecords(stream, stream.length - 20);
  assert.ok(kept < whole.sampleCount, "the cut lost the samples of the record it fell in");
  assert.equal(opened.sampleCount, kept);
  // The same cut in a file without the SPOOLED record: damaged, refused.
  assert.throws(() => openRecording(stream.subarray(0, stream.length - 20)), /The clrscope file is truncated: it ends at byte \d+, inside the record that starts at byte \d+/);
});

test('finish() drops a half-received record and appends the END of a stop made by the reader', () => {
  const stream = fixtureStream({ end: false });
  const spool = spoolOf(stream.subarray(0, stream.length - 20));
  assert.equal(spool.holdsRecords, true);
  assert.equal(spool.finish({ mono: 12345, reason: EndReason.Stopped }), true);
  const opened = openRecording(readFileSync(spool.path)).recording;
  assert.equal(opened.cut, false);
  assert.deepEqual(opened.end, { mono: 12345, reason: EndReason.Stopped });
  assert.equal(opened.sampleCount, samplesInWholeRecords(stream, stream.length - 20));
});

test('a stream that brought its own END gets no second one', () => {
  const spool = spoolOf(fixtureStream());
  assert.equal(spool.finish({ mono: 1, reason: EndReason.Stopped }), true);
  assert.equal(openRecording(readFileSync(spool.path)).recording.end?.reason, 0);
});

test('a spool closed after its last write (its session\'s stream ended) is still finished into a whole file; one removed is not', () => {
  const stream = fixtureStream({ end: false });
  const spool = spoolOf(stream.subarray(0, stream.length - 20));
  spool.close();
  assert.equal(spool.finish({ mono: 777, reason: EndReason.Stopped }), true);
  const opened = openRecording(readFileSync(spool.path)).recording;
  assert.equal(opened.cut, false);
  assert.deepEqual(opened.end, { mono: 777, reason: EndReason.Stopped });
  assert.equal(opened.sampleCount, samplesInWholeRecords(stream, stream.length - 20));
  const gone = spoolOf(fixtureStream());
  gone.remove();
  assert.equal(gone.finish(undefined), false);
});
