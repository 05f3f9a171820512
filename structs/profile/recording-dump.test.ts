// Golden text dumps of fixture recordings (google/pprof's testdata/*.string habit): a change to
// what the model keeps, or to how it is dumped, shows as a diff of these files. After a change
// meant to alter them, rewrite them with CLRSCOPE_UPDATE_GOLDEN=1 and read the diff.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { asyncFixtureStream } from './async-fixture-stream.test-support.js';
import { checkRecording } from './check-recording.js';
import { FIXTURE_START_MONO, fixtureEncoder, fixtureStream } from './fixture-stream.test-support.js';
import { lineFixture } from './line-fixture.test-support.js';
import { recordingFromStream } from './recording-from-stream.js';
import { dumpRecording } from './recording-dump.js';
import type { Recording } from './recording.js';
import { EventKind } from '../wire/records.js';

// The compiled test runs from dist/structs/profile; the golden files stay in the source tree.
const golden = (name: string): URL => new URL(`../../../structs/profile/testdata/${name}.dump.txt`, import.meta.url);

/** The fixture with an allocation, a lock wait, exceptions (one without a stack) and a GC pause. */
function eventsAndPauses(): Recording {
  const enc = fixtureEncoder();
  const at = FIXTURE_START_MONO + 8500;
  enc.stack(90, 0, [3, 2, 1]).stack(91, 0, [1]);
  enc.string(1, 'System.Byte[]').string(2, 'System.ArgumentException');
  enc.event({ kind: EventKind.Allocation, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 10 });
  enc.event({ kind: EventKind.Contention, mono: at + 1, threadId: 2, stackId: 91, labelId: 0, value1: 5_000_000 });
  enc.event({ kind: EventKind.Exception, mono: at + 2, threadId: 0, stackId: 0, labelId: 2, value1: 4 });
  enc.suspension({ mono: at + 3, durationNs: 2_000_000, suspendNs: 100_000, reason: 1, generation: 2, flags: 0 });
  enc.end({ mono: FIXTURE_START_MONO + 9000, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}

const FIXTURES: Record<string, () => Recording> = {
  'events-and-pauses': eventsAndPauses,
  'fixture-stream': () => recordingFromStream([fixtureStream({ end: true })]),
  'fixture-stream-cut': () => recordingFromStream([fixtureStream()]),
  'async-fixture': () => recordingFromStream([asyncFixtureStream()]),
  'line-fixture': () => lineFixture(),
};

for (const [name, make] of Object.entries(FIXTURES)) {
  test(`the dump of ${name} is testdata/${name}.dump.txt, and the recording checks clean`, () => {
    const rec = make();
    assert.deepEqual(checkRecording(rec), []);
    const text = dumpRecording(rec);
    if (process.env.CLRSCOPE_UPDATE_GOLDEN === '1') writeFileSync(golden(name), text);
    assert.equal(text, readFileSync(golden(name), 'utf8'));
  });
}
