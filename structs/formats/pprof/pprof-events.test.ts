// Event samples (allocations, lock waits, exceptions) in the pprof and speedscope exports: a
// stream with known events, read back by go tool pprof and held to speedscope's schema.

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { FIXTURE_START_MONO, fixtureEncoder, fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { eventMetricsPresent, totalsByLabel } from '../../profile/event-metrics.js';
import { topMethods } from '../../profile/top-methods.js';
import { fromSpeedscope } from '../../formats/speedscope/from-speedscope.js';
import { speedscopeSchemaProblems } from '../../formats/speedscope/schema-check.js';
import { toSpeedscope } from '../../formats/speedscope/to-speedscope.js';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { EventKind } from '../../wire/records.js';
import { goPprof, requireGo } from './go-pprof.test-support.js';
import { gzippedPprof } from './pprof.test-support.js';
import { FrameLines } from '../../profile/frame-lines.js';
import { LINE_FIXTURE_FILE, lineFixture, lineFixtureLookup } from '../../profile/line-fixture.test-support.js';

/**
 * The fixture stream (Main;Work;Hot is functions 1,2,3) and, after it:
 *   alloc  t1 Main;Work;Hot  System.Byte[]           1000 bytes, 10 objects
 *   alloc  t3 Main           App.Pair<System.Int64>   300 bytes, 30 objects
 *   lock   t2 Main;Work;Hot                          5 ms
 *   exc    t1 Main;Work;Hot  System.ArgumentException 1
 *   exc    (no thread, no stack) System.ArgumentException 4
 */
function eventStream(): Uint8Array {
  const enc = fixtureEncoder();
  const at = FIXTURE_START_MONO + 8500;
  enc.stack(90, 0, [3, 2, 1]).stack(91, 0, [1]);
  enc.string(1, 'System.Byte[]').string(2, 'App.Pair<System.Int64>').string(3, 'System.ArgumentException');
  enc.event({ kind: EventKind.Allocation, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 10 });
  enc.event({ kind: EventKind.Allocation, mono: at + 1, threadId: 3, stackId: 91, labelId: 2, value1: 300, value2: 30 });
  enc.event({ kind: EventKind.Contention, mono: at + 2, threadId: 2, stackId: 90, labelId: 0, value1: 5_000_000 });
  enc.event({ kind: EventKind.Exception, mono: at + 3, threadId: 1, stackId: 90, labelId: 3, value1: 1 });
  enc.event({ kind: EventKind.Exception, mono: at + 4, threadId: 0, stackId: 0, labelId: 3, value1: 4 });
  enc.end({ mono: FIXTURE_START_MONO + 9000, reason: 0 });
  return enc.bytes().slice();
}

const rec = recordingFromStream([eventStream()]);
const work = mkdtempSync(join(tmpdir(), 'clrscope-pprof-events-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const file = join(work, 'events.pb.gz');
writeFileSync(file, gzippedPprof(rec));

function pprof(t: TestContext, ...args: string[]): string | undefined {
  return requireGo(t) ? goPprof(work, args, file) : undefined;
}

/** `-top` rows as name -> [flat, cum] text. */
function top(text: string): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  for (const line of text.split('\n')) {
    const m = /^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+)$/.exec(line);
    if (m !== null && m[1] !== 'flat') rows.set(m[3], [m[1], m[2]]);
  }
  return rows;
}

test('the recording keeps the events, the no-thread one included, and sums them by type and method', () => {
  assert.equal(rec.eventCount, 5);
  assert.deepEqual(eventMetricsPresent(rec), ['alloc-space', 'alloc-objects', 'alloc-samples', 'delay', 'contentions', 'exceptions']);
  assert.deepEqual(totalsByLabel(rec, 'exceptions'), [{ label: 'System.ArgumentException', value: 5, events: 2 }]);
  assert.deepEqual(totalsByLabel(rec, 'alloc-space').map((t) => [t.label, t.value]), [['System.Byte[]', 1000], ['App.Pair<System.Int64>', 300]]);
  assert.deepEqual(topMethods(rec, 'alloc-space', 2).map((r) => [r.name, r.selfValue, r.totalValue]), [['App.Worker.Hot', 1000, 1000], ['App.Program.Main', 300, 1300]]);
});

test('pprof: the six event sample types after cpu, only when there are events', () => {
  const types = (bytes: Uint8Array): string[] => {
    const p = Profile.decode(gunzipSync(bytes));
    return p.sampleType.map((v) => `${p.stringTable.strings[Number(v.type)]}/${p.stringTable.strings[Number(v.unit)]}`);
  };
  assert.deepEqual(types(gzippedPprof(rec)), ['samples/count', 'wall/nanoseconds', 'cpu/nanoseconds', 'alloc-space/bytes', 'alloc-objects/count', 'alloc-samples/count', 'delay/nanoseconds', 'contentions/count', 'exceptions/count']);
  assert.deepEqual(types(gzippedPprof(recordingFromStream([fixtureStream()]))), ['samples/count', 'wall/nanoseconds', 'cpu/nanoseconds']);
});

test('go tool pprof reads each event type by -sample_index', (t) => {
  const space = pprof(t, '-top', '-nodefraction=0', '-sample_index=alloc-space');
  if (space === undefined) return;
  assert.deepEqual(top(space).get('App.Worker.Hot'), ['1000B', '1000B']);
  assert.deepEqual(top(space).get('App.Program.Main'), ['300B', '1300B']);
  assert.deepEqual(top(pprof(t, '-top', '-nodefraction=0', '-sample_index=alloc-objects') ?? '').get('App.Program.Main'), ['30', '40']);
  assert.deepEqual(top(pprof(t, '-top', '-nodefraction=0', '-sample_index=delay') ?? '').get('App.Worker.Hot'), ['5ms', '5ms']);
  assert.deepEqual(top(pprof(t, '-top', '-nodefraction=0', '-sample_index=contentions') ?? '').get('App.Worker.Hot'), ['1', '1']);
  const exceptions = top(pprof(t, '-top', '-nodefraction=0', '-sample_index=exceptions') ?? '');
  assert.deepEqual(exceptions.get('[no stack: over the stack budget]'), ['4', '4']);
  assert.deepEqual(exceptions.get('App.Worker.Hot'), ['1', '1']);
  const tags = pprof(t, '-tags', '-sample_index=exceptions') ?? '';
  assert.match(tags, /type: Total 5\.0\n\s+5\.0 \(\s*100%\): System\.ArgumentException/);
  // CPU is untouched by the event rows.
  assert.deepEqual(top(pprof(t, '-top', '-nodefraction=0', '-sample_index=cpu') ?? '').get('App.Worker.Hot'), ['35ns', '35ns']);
});

test('speedscope: one profile per event type, valid, and ignored by our importer', () => {
  const file = toSpeedscope(rec);
  assert.deepEqual(speedscopeSchemaProblems(file), []);
  const events = file.profiles.filter((p) => p.name.startsWith('events · '));
  assert.deepEqual(events.map((p) => [p.name, p.unit, p.endValue]), [
    ['events · alloc-space', 'bytes', 1300], ['events · alloc-objects', 'none', 40], ['events · alloc-samples', 'none', 2],
    ['events · delay', 'nanoseconds', 5_000_000], ['events · contentions', 'none', 1], ['events · exceptions', 'none', 5],
  ]);
  const exceptions = events.find((p) => p.name === 'events · exceptions');
  assert.ok(exceptions !== undefined && exceptions.type === 'sampled');
  const names = (stack: number[]): string[] => stack.map((i) => file.shared.frames[i].name);
  assert.deepEqual(exceptions.samples.map(names), [['App.Program.Main', 'App.Worker.Work', 'App.Worker.Hot'], ['[no stack: over the stack budget]']]);
  assert.deepEqual(exceptions.weights, [1, 4]);
  const back = fromSpeedscope(JSON.stringify(file));
  const plain = recordingFromStream([fixtureStream()]);
  assert.equal(toCollapsed(back, { metric: 'cpu' }), toCollapsed(fromSpeedscope(JSON.stringify(toSpeedscope(plain))), { metric: 'cpu' }));
});

test('with source lines, event samples name their frames\' lines, and the unstacked frame gets a location of its own', (t) => {
  // Two exceptions thrown at Hot's line 12 (stack 1), one over the stack budget.
  const lined = lineFixture((enc) => {
    enc.string(1, 'System.ArgumentException');
    enc.event({ kind: EventKind.Exception, mono: 2100, threadId: 1, stackId: 1, labelId: 1, value1: 2 });
    enc.event({ kind: EventKind.Exception, mono: 2101, threadId: 0, stackId: 0, labelId: 1, value1: 1 });
  });
  const bytes = gzippedPprof(lined, new FrameLines(lined, lineFixtureLookup));
  const profile = Profile.decode(gunzipSync(bytes));
  const ids = profile.location.map((l) => Number(l.id));
  assert.equal(new Set(ids).size, ids.length, 'location ids unique');
  for (const s of profile.sample) for (const id of s.locationId) assert.ok(ids.includes(Number(id)), `sample names location ${id}`);
  const path = join(work, 'events-lines.pb.gz');
  writeFileSync(path, bytes);
  if (!requireGo(t)) return;
  const out = goPprof(work, ['-top', '-lines', '-sample_index=exceptions'], path);
  assert.match(out, new RegExp(`\\n\\s+2\\s+[\\d.]+%\\s+[\\d.]+%\\s+2\\s+[\\d.]+%\\s+App\\.Program\\.Hot ${LINE_FIXTURE_FILE}:12`));
  assert.match(out, /\n\s+1\s+[\d.]+%\s+[\d.]+%\s+1\s+[\d.]+%\s+\[no stack: over the stack budget\]/);
});
