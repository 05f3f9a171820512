import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { Recording } from '../../profile/recording.js';
import { topMethods } from '../../profile/top-methods.js';
import { WireEncoder } from '../../wire/encoder.js';
import { HelloFlags } from '../../wire/records.js';
import { ESTIMATED_CPU_MARK } from './exporter-name.js';
import { fromSpeedscope, SPEEDSCOPE_IMPORT_SOURCE } from './from-speedscope.js';
import { speedscopeSchemaProblems } from './schema-check.js';
import { speedscopeJsonChunks, toSpeedscope, toSpeedscopeJson } from './to-speedscope.js';

const fixture = (name: string): string => readFileSync(new URL(`../../../../structs/formats/speedscope/fixtures/${name}`, import.meta.url), 'utf8');
const rec = recordingFromStream([fixtureStream()]);
const collapsed = (r: Recording, metric: 'cpu' | 'wall' | 'samples'): string => toCollapsed(r, { metric, groupByThread: true });

test('the fixture recording exports to the expected text, byte for byte', () => {
  assert.equal(toSpeedscopeJson(rec), fixture('fixture-recording.speedscope.json').trim());
});

test('the export has every field the schema requires', () => {
  assert.deepEqual(speedscopeSchemaProblems(toSpeedscope(rec)), []);
  assert.deepEqual(speedscopeSchemaProblems(JSON.parse(fixture('evented-dotnet-trace-like.speedscope.json'))), []);
  // The checker itself notices what is missing.
  const broken = toSpeedscope(rec) as unknown as Record<string, unknown>;
  delete broken.$schema;
  (broken.profiles as Record<string, unknown>[])[0].weights = [1];
  assert.deepEqual(speedscopeSchemaProblems(broken), ['$schema is undefined, not the schema\'s URL', 'profile 0 has 3 samples but 1 weights']);
});

test('metric picks the profiles; an empty recording is a valid empty file', () => {
  const cpu = toSpeedscope(rec, { metric: 'cpu' });
  assert.deepEqual(cpu.profiles.map((p) => p.name), ['main (tid 100) · cpu', 'thread 200 (tid 200) · cpu', 'main (tid 300) · cpu']);
  const wall = toSpeedscope(rec, { metric: 'wall', name: 'x', exporter: 'clrscope@test' });
  assert.deepEqual(wall.profiles.map((p) => p.name), ['thread 200 (tid 200) · wall', 'main (tid 300) · wall']);
  assert.equal(wall.activeProfileIndex, 0);
  assert.equal(wall.name, 'x');
  const empty = toSpeedscope(new Recording());
  assert.deepEqual(speedscopeSchemaProblems(empty), []);
  assert.equal(empty.profiles.length, 0);
});

test('runs of one stack become one sample; other stacks in between keep the time order', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 1, flags: 1, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: '' })
    .function({ functionId: 1, kind: 0, name: 'A', module: '', file: '' })
    .function({ functionId: 2, kind: 0, name: 'B', module: '', file: '' })
    .thread({ threadId: 1, osTid: 5, clrThreadId: 0, mono: 0, name: 't' });
  for (const [f, v] of [[1, 1], [1, 2], [2, 4], [1, 8], [1, 16]]) enc.sample({ mono: v, threadId: 1, flags: 1, cpuNs: v, wallNs: 0, frames: [f] });
  const file = toSpeedscope(recordingFromStream([enc.bytes()]), { metric: 'cpu' });
  const p = file.profiles[0];
  assert.equal(p.type, 'sampled');
  if (p.type !== 'sampled') return;
  assert.deepEqual(p.samples, [[0], [1], [0]]);
  assert.deepEqual(p.weights, [3, 4, 24]);
});

test('the text comes in pieces, and progress reaches the total', () => {
  const progress: [number, number][] = [];
  const pieces = Array.from(speedscopeJsonChunks(rec, { progress: (d, t) => progress.push([d, t]) }));
  assert.equal(pieces.join(''), toSpeedscopeJson(rec));
  assert.deepEqual(progress[progress.length - 1], [progress[progress.length - 1][1], progress[progress.length - 1][1]]);
});

test('export then import gives the same cpu and wall trees per thread, with incomplete roots and natives restored', () => {
  const back = fromSpeedscope(toSpeedscopeJson(rec));
  assert.equal(collapsed(back, 'cpu'), collapsed(rec, 'cpu'));
  assert.equal(collapsed(back, 'wall'), collapsed(rec, 'wall'));
  assert.deepEqual(topMethods(back, 'wall', 3).map((r) => r.name), topMethods(rec, 'wall', 3).map((r) => r.name));
  // The merged run of two samples comes back as one; that is all that changes.
  assert.equal(back.sampleCount, 8);
  assert.equal(back.meta?.profilerVersion, 'clrscope');
  assert.ok(back.threads().some((t) => t.name === '' && t.osTid === 200));
  assert.deepEqual(speedscopeSchemaProblems(toSpeedscope(back)), []);
});

test('estimated CPU is said in the exporter and read back; the file stays within the schema', () => {
  const enc = new WireEncoder().preamble().hello({
    pid: 7, flags: HelloFlags.Cpu | HelloFlags.Wall | HelloFlags.Attached | HelloFlags.ApproximateCpu, mono: 0, unixNs: 0n, intervalNs: 1_000_000,
    wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'EventPipe SampleProfiler (runtime, live session)',
  })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'main' })
    .sample({ mono: 1_000_000, threadId: 1, flags: 1, cpuNs: 1_000_000, wallNs: 0, frames: [1] });
  const estimated = recordingFromStream([enc.bytes()]);
  const file = toSpeedscope(estimated);
  assert.equal(file.exporter, `clrscope${ESTIMATED_CPU_MARK}`);
  assert.deepEqual(speedscopeSchemaProblems(file), []);
  const back = fromSpeedscope(file);
  assert.equal(back.meta?.approximateCpu, true);
  assert.equal(back.meta?.flags, HelloFlags.Cpu | HelloFlags.ApproximateCpu);
  assert.equal(back.meta?.profilerVersion, 'clrscope');
  assert.equal(collapsed(back, 'cpu'), collapsed(estimated, 'cpu'));
  assert.equal(toSpeedscope(back).exporter, `clrscope${ESTIMATED_CPU_MARK}`, 'saved again, still estimated');
  assert.equal(toSpeedscope(estimated, { exporter: 'clrscope@test' }).exporter, `clrscope@test${ESTIMATED_CPU_MARK}`);
  // Measured stays measured, and the mark means nothing on another tool's file.
  assert.equal(toSpeedscope(rec).exporter, 'clrscope');
  assert.equal(fromSpeedscope(toSpeedscopeJson(rec)).meta?.approximateCpu, false);
  const other = fromSpeedscope({ ...file, exporter: `speedscope@1.0${ESTIMATED_CPU_MARK}` });
  assert.deepEqual([other.meta?.approximateCpu, other.meta?.profilerVersion], [false, SPEEDSCOPE_IMPORT_SOURCE]);
});

test('an evented profile becomes samples of the stack open between events; open frames run to the end', () => {
  const back = fromSpeedscope(JSON.parse(fixture('evented-dotnet-trace-like.speedscope.json')));
  assert.equal(collapsed(back, 'cpu'), [
    'Thread (1234);Program.Main 4500000',
    'Thread (1234);Program.Main;Program.Work 2500000',
    'Thread (1234);Program.Main;Program.Work;System.Threading.Thread.Sleep 3000000',
    'Thread (5678);Other.Run 1000000',
    'Thread (5678);Other.Run;System.Threading.Thread.Sleep 3000000',
    '',
  ].join('\n'));
  assert.equal(collapsed(back, 'wall'), '');
  assert.equal(back.sampleMono(0), 0);
  const firstOfSecond = back.sampleColumns().threadId.indexOf(2);
  assert.equal(back.sampleMono(firstOfSecond), 4_000_000);
});

test('files speedscope would not read either are refused with one sentence', () => {
  const good = fixture('fixture-recording.speedscope.json');
  const withProfile = (patch: Record<string, unknown>): string => {
    const f = JSON.parse(good) as { profiles: Record<string, unknown>[] };
    Object.assign(f.profiles[0], patch);
    return JSON.stringify(f);
  };
  const cases: [string, RegExp][] = [
    [good.slice(0, 100), /^Not a readable speedscope file: the text is not valid JSON \(.+\)\.$/],
    ['[1,2]', /^Not a readable speedscope file: the JSON is not an object\.$/],
    ['{"profiles":[]}', /^Not a readable speedscope file: it has no shared\.frames list\.$/],
    ['{"shared":{"frames":[]}}', /^Not a readable speedscope file: it has no profiles list\.$/],
    [withProfile({ unit: 'parsecs' }), /profile 0 has unit "parsecs", not one of none, nanoseconds/],
    [withProfile({ type: 'flat' }), /profile 0 has type "flat", not "sampled" or "evented"/],
    [withProfile({ weights: [1] }), /sampled profile 0 has 3 samples but 1 weights/],
    [withProfile({ samples: [[1], [99], [2]] }), /sample 1 of profile 0 names frame 99, but shared\.frames has 9/],
    [withProfile({ weights: [1, -1, 1] }), /weight 1 of profile 0 is negative/],
    [withProfile({ startValue: 'soon' }), /profile 0's startValue is "soon", not a number/],
    [withProfile({ type: 'evented', events: [{ type: 'O', frame: 1, at: 0 }, { type: 'C', frame: 2, at: 1 }] }),
      /event 1 of profile 0 closes frame 2, which is not the innermost open frame/],
    [withProfile({ type: 'evented', events: [{ type: 'O', frame: 1, at: 5 }, { type: 'C', frame: 1, at: 1 }] }), /event 1 of profile 0 goes back in time/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => fromSpeedscope(text), (err: Error) => err.name === 'SpeedscopeFormatError' && message.test(err.message) && !err.message.includes('\n'), String(message));
  }
});
