// The live heap and lock owners in the pprof export: a stream with two live sets and a lock wait
// whose owner is known, read back by go tool pprof. Only the newest live set is the live heap.

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_START_MONO, fixtureEncoder } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { eventMetricsPresent, liveSetMono, totalsByLabel } from '../../profile/event-metrics.js';
import { EventKind } from '../../wire/records.js';
import { goPprof, requireGo } from './go-pprof.test-support.js';
import { gzippedPprof } from './pprof.test-support.js';

/**
 * After the fixture stream (Main;Work;Hot is functions 1,2,3):
 *   live set at +100: App.Kept 500 bytes / 5 objects (t1, Main;Work;Hot), App.Gone 200 / 2 (t3, Main)
 *   live set at +200: App.Kept 800 bytes / 8 objects (t1, Main;Work;Hot)
 *   lock wait of t2, 5 ms, held by t1 ("main", os tid 100); one of t3, 1 ms, owner unknown
 */
function liveStream(): Uint8Array {
  const enc = fixtureEncoder();
  const at = FIXTURE_START_MONO + 8500;
  enc.stack(90, 0, [3, 2, 1]).stack(91, 0, [1]);
  enc.string(1, 'App.Kept').string(2, 'App.Gone');
  enc.event({ kind: EventKind.LiveSnapshot, mono: at + 100, threadId: 0, stackId: 0, labelId: 0, value1: 7, value2: 0 });
  enc.event({ kind: EventKind.Live, mono: at + 100, threadId: 1, stackId: 90, labelId: 1, value1: 500, value2: 5 });
  enc.event({ kind: EventKind.Live, mono: at + 100, threadId: 3, stackId: 91, labelId: 2, value1: 200, value2: 2 });
  enc.event({ kind: EventKind.Contention, mono: at + 150, threadId: 2, stackId: 90, labelId: 0, value1: 5_000_000, value2: 1 });
  enc.event({ kind: EventKind.Contention, mono: at + 160, threadId: 3, stackId: 91, labelId: 0, value1: 1_000_000 });
  enc.event({ kind: EventKind.LiveSnapshot, mono: at + 200, threadId: 0, stackId: 0, labelId: 0, value1: 8, value2: 3 });
  enc.event({ kind: EventKind.Live, mono: at + 200, threadId: 1, stackId: 90, labelId: 1, value1: 800, value2: 8 });
  enc.end({ mono: FIXTURE_START_MONO + 9000, reason: 0 });
  return enc.bytes().slice();
}

const rec = recordingFromStream([liveStream()]);
const work = mkdtempSync(join(tmpdir(), 'clrscope-pprof-live-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const file = join(work, 'live.pb.gz');
writeFileSync(file, gzippedPprof(rec));

function pprof(t: TestContext, ...args: string[]): string | undefined {
  return requireGo(t) ? goPprof(work, args, file) : undefined;
}

test('the live heap is the newest live set; older sets are history', () => {
  assert.deepEqual(eventMetricsPresent(rec), ['delay', 'contentions', 'inuse-space', 'inuse-objects']);
  assert.equal(liveSetMono(rec), FIXTURE_START_MONO + 8700);
  assert.equal(liveSetMono(rec, FIXTURE_START_MONO + 8650), FIXTURE_START_MONO + 8600);
  assert.deepEqual(totalsByLabel(rec, 'inuse-space').map((t) => [t.label, t.value]), [['App.Kept', 800]]);
  assert.deepEqual(totalsByLabel(rec, 'inuse-objects').map((t) => [t.label, t.value]), [['App.Kept', 8]]);
});

test('go tool pprof reads inuse-space and inuse-objects of the newest set only', (t) => {
  const space = pprof(t, '-tags', '-sample_index=inuse-space');
  if (space === undefined) return;
  assert.match(space, /type: Total 800(\.0)?B\n\s+800(\.0)?B \(\s*100%\): App\.Kept\n/);
  assert.doesNotMatch(space, /App\.Gone/);
  const objects = pprof(t, '-tags', '-sample_index=inuse-objects');
  assert.match(objects ?? '', /type: Total 8(\.0)?\n\s+8(\.0)? \(\s*100%\): App\.Kept\n/);
});

test('a lock wait carries its owner as a label, named as its thread is', (t) => {
  const tags = pprof(t, '-tags', '-sample_index=delay');
  if (tags === undefined) return;
  // The wait whose owner was not known has no owner label: 5 ms of the 6 carry one.
  assert.match(tags, /lock owner thread: Total 5\.0ms\n\s+5\.0ms \(\s*100%\): main\n/);
  assert.match(tags, /lock owner thread id: Total 5\.0ms\n\s+5\.0ms \(\s*100%\): 100\n/);
});

test('with several processes, each has its own newest live set', () => {
  const several = recordingFromStream([liveStream()]);
  several.addProcess({ pid: 11, name: 'parent' }, [1, 2]);
  several.addProcess({ pid: 12, name: 'child' }, [3]);
  // The child's only set (App.Gone, at +100) stays its live heap beside the parent's newer one.
  assert.deepEqual(totalsByLabel(several, 'inuse-space').map((t) => [t.label, t.value]), [['App.Kept', 800], ['App.Gone', 200]]);
});
