import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dumpRecording } from '../../../structs/profile/recording-dump.js';
import { FIXTURE_START_MONO, fixtureEncoder, fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { Recording } from '../../../structs/profile/recording.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { EndReason } from '../../../structs/wire/records.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { SessionStream } from './session-stream.js';
import { buildPprofProfile } from '../../../structs/formats/pprof/to-pprof.js';
import { recordingFromSessionStream, summedFromSessionStream } from './stream-recording.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-stream-recording-test-'));
chmodSync(dir, 0o700);
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** What the collector does for the workstation: the stream to the session's stream, decoded into a model that keeps no samples. */
function liveSession(wire: Uint8Array, spooled: boolean): { stream: SessionStream; model: Recording; decoder: WireDecoder } {
  const stream = spooled ? SessionStream.create(dir, `s${++n}.clrscope`) : SessionStream.inMemory();
  const model = new Recording({ keepSamples: false });
  const decoder = new WireDecoder(model.sink);
  for (let p = 0; p < wire.length; p += 11) {
    const chunk = wire.subarray(p, p + 11);
    stream.append(chunk);
    decoder.push(chunk);
  }
  return { stream, model, decoder };
}

test('a model that keeps no samples counts them, holds every definition, and refuses per-sample reads', () => {
  const wire = fixtureStream();
  const full = recordingFromStream([wire]);
  const { model } = liveSession(wire, false);
  assert.equal(model.keepsSamples, false);
  assert.equal(model.sampleCount, full.sampleCount);
  assert.equal(model.sampleCount, 8);
  assert.equal(model.stackCount, full.stackCount);
  assert.deepEqual(model.threads(), full.threads());
  assert.deepEqual(model.functions(), full.functions());
  assert.deepEqual(model.end, full.end);
  assert.throws(() => model.sampleColumns(), /keeps no samples/);
  assert.throws(() => model.forEachSample(() => undefined), /keeps no samples/);
  assert.throws(() => model.sampleWallNs(0), /keeps no samples/);
  assert.ok(model.byteSize() < full.byteSize(), 'no column capacity');
});

for (const spooled of [true, false]) {
  test(`every sample is read back from the ${spooled ? 'spool file' : 'in-memory stream'}, equal to a decode of the same bytes`, async () => {
    const wire = fixtureStream();
    const { stream, model } = liveSession(wire, spooled);
    model.finish();
    const steps: number[] = [];
    const rec = await recordingFromSessionStream(stream, model, (done, total) => {
      assert.equal(total, wire.length);
      steps.push(done);
    });
    assert.equal(dumpRecording(rec), dumpRecording(recordingFromStream([wire])));
    assert.equal(steps[steps.length - 1], wire.length);
    await stream.close();
  });
}

test('an END the collector added when it hung up is carried over; an unfinished model gives an unfinished copy', async () => {
  const enc = fixtureEncoder();
  const wire = enc.bytes().slice();
  const { stream, model } = liveSession(wire, true);
  const during = await recordingFromSessionStream(stream, model);
  assert.equal(during.isFinished, false);
  assert.equal(during.sampleCount, 8);
  model.sink.onEnd({ mono: 123, reason: EndReason.Stopped });
  model.finish();
  const after = await recordingFromSessionStream(stream, model);
  assert.deepEqual(after.end, { mono: 123, reason: EndReason.Stopped });
  assert.equal(after.cut, false);
  await stream.close();
});

test('a stream the live decoder rejected is read back to the same point, what came before kept', async () => {
  const enc = fixtureEncoder();
  const wire = enc.bytes().slice();
  // A sample naming thread 99, which no THREAD defined.
  const bad = enc.sample({ mono: 1, threadId: 99, flags: 1, cpuNs: 1, wallNs: 0, frames: [1] }).bytes().slice(wire.length);
  const stream = SessionStream.inMemory();
  const model = new Recording({ keepSamples: false });
  const decoder = new WireDecoder(model.sink);
  stream.append(wire);
  decoder.push(wire);
  stream.append(bad);
  assert.throws(() => decoder.push(bad), /thread 99/);
  model.finish();
  const rec = await recordingFromSessionStream(stream, model);
  assert.equal(rec.sampleCount, model.sampleCount);
  assert.equal(rec.sampleCount, 8);
  assert.equal(rec.cut, true);
});

test('a pprof export from the samples summed step by step equals one from every sample kept, and holds none of them', async () => {
  // Enough samples for several read-back steps (1 MiB each), over every thread and a few hundred stacks.
  const enc = fixtureEncoder();
  for (let i = 0; i < 400_000; i++) {
    const frames = [1 + (i % 6), 1 + ((i >> 3) % 6), 1 + ((i >> 6) % 6)];
    enc.sample({ mono: FIXTURE_START_MONO + 10_000 + i * 1000, threadId: 1 + (i % 3), flags: 1 + (i % 2) * 2, cpuNs: (i % 2) * 10_000, wallNs: 10_000, frames });
  }
  const wire = enc.bytes().slice();
  const { stream, model } = liveSession(wire, true);
  model.finish();
  assert.ok(wire.length > 2 * (1 << 20), `${wire.length} bytes: several steps`);
  const steps: number[] = [];
  const { recording, sums } = await summedFromSessionStream(stream, model, (done) => steps.push(done));
  assert.ok(steps.length >= 3, `${steps.length} steps`);
  assert.equal(recording.sampleCount, 400_008);
  assert.throws(() => recording.sampleColumns(), 'the summed read-back keeps no sample columns');
  assert.equal(sums.list.reduce((n, s) => n + s.samples, 0), 400_008);
  const full = await recordingFromSessionStream(stream, model);
  assert.deepEqual(buildPprofProfile(recording, undefined, { summed: sums }).encode(), buildPprofProfile(full).encode());
  await stream.close();
});
