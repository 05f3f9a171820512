import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Function as PprofFunction, Label, Line, Location, Mapping, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import type { Recording } from '../../profile/recording.js';
import { FunctionKind, HelloFlags, SampleFlags } from '../../wire/records.js';
import { fromPprof, PPROF_IMPORT_SOURCE } from './from-pprof.js';
import { APPROXIMATE_CPU_COMMENT, ownComment, ownCommentSource } from './pprof-comments.js';

const collapsed = (r: Recording, metric: 'cpu' | 'wall' | 'samples'): string => toCollapsed(r, { metric, groupByThread: true });

interface RowSpec {
  stack: number[];
  values: number[];
  tid?: number;
  thread?: string;
}

/** A profile with: functions Main, Work, Inlined, Leaf; mapping App.dll and libc.so.6; location 2 holds Inlined inlined into Work. */
function profile(types: [string, string][], rows: RowSpec[], extra: { defaultType?: string; period?: [string, string, number]; comments?: string[] } = {}): Uint8Array {
  const st = new StringTable();
  const fns = ['App.Main', 'App.Work', 'App.Inlined', 'libc.so.6!read', '[libcoreclr.so]'].map((name, i) => new PprofFunction({ id: i + 1, name: st.dedup(name), systemName: st.dedup(name), filename: st.dedup(i === 0 ? 'Main.cs' : '') }));
  const app = new Mapping({ id: 1, filename: st.dedup('App.dll'), hasFunctions: true });
  const libc = new Mapping({ id: 2, filename: st.dedup('libc.so.6'), hasFunctions: true });
  const clr = new Mapping({ id: 3, filename: st.dedup('libcoreclr.so'), hasFunctions: true });
  const locations = [
    new Location({ id: 1, mappingId: 1, line: [new Line({ functionId: 1 })] }),
    new Location({ id: 2, mappingId: 1, line: [new Line({ functionId: 3 }), new Line({ functionId: 2 })] }),
    new Location({ id: 3, mappingId: 2, line: [new Line({ functionId: 4 })] }),
    new Location({ id: 4, mappingId: 3, line: [new Line({ functionId: 5 })] }),
    new Location({ id: 5, mappingId: 3, address: 0x1234 }),
  ];
  const sample = rows.map((r) => {
    const label: Label[] = [];
    if (r.tid !== undefined) label.push(new Label({ key: st.dedup('thread id'), num: r.tid }));
    if (r.thread !== undefined) label.push(new Label({ key: st.dedup('thread name'), str: st.dedup(r.thread) }));
    return new Sample({ locationId: r.stack, value: r.values, label });
  });
  return new Profile({
    sampleType: types.map(([t, u]) => new ValueType({ type: st.dedup(t), unit: st.dedup(u) })),
    sample, mapping: [app, libc, clr], location: locations, function: fns, stringTable: st,
    timeNanos: 1_700_000_000_000_000_000n,
    periodType: extra.period ? new ValueType({ type: st.dedup(extra.period[0]), unit: st.dedup(extra.period[1]) }) : undefined,
    period: extra.period?.[2] ?? 0,
    defaultSampleType: extra.defaultType !== undefined ? st.dedup(extra.defaultType) : 0,
    comment: (extra.comments ?? []).map((c) => st.dedup(c)),
  }).encode();
}

const OURS: [string, string][] = [['samples', 'count'], ['wall', 'nanoseconds'], ['cpu', 'nanoseconds']];

test('clrscope-shaped rows: counts, cpu and wall per thread; inlined lines expand innermost first', () => {
  const rec = fromPprof(profile(OURS, [
    { stack: [2, 1], values: [3, 0, 30], tid: 100, thread: 'main' },
    { stack: [3, 2, 1], values: [1, 100, 0], tid: 200 },
    { stack: [4], values: [2, 7, 5], tid: 200 },
  ], { period: ['cpu', 'nanoseconds', 10_000_000] }));
  assert.equal(collapsed(rec, 'cpu'), 'main;App.Main;App.Work;App.Inlined 30\nthread 200;[libcoreclr.so] 5\n');
  assert.equal(collapsed(rec, 'wall'), 'thread 200;App.Main;App.Work;App.Inlined;libc.so.6!read 100\nthread 200;[libcoreclr.so] 7\n');
  assert.equal(collapsed(rec, 'samples'), [
    'main;App.Main;App.Work;App.Inlined 3',
    'thread 200;App.Main;App.Work;App.Inlined;libc.so.6!read 1',
    'thread 200;[libcoreclr.so] 2',
    '',
  ].join('\n'));
  // Whole nanoseconds that add up: 30 over 3 samples is 10 each; 5 over 2 is 2 and 3.
  assert.deepEqual(Array.from(rec.sampleColumns().cpuNs), [10, 10, 10, 0, 2, 3]);
  assert.deepEqual(Array.from(rec.sampleColumns().flags), [1, 1, 1, 2, 3, 3]);
  assert.equal(rec.meta?.intervalNs, 10_000_000);
  assert.equal(rec.meta?.startUnixNs, 1_700_000_000_000_000_000n);
  const read = rec.functions().find((f) => f.name === 'read');
  assert.deepEqual([read?.kind, read?.module], [FunctionKind.Native, 'libc.so.6']);
  const main = rec.functions().find((f) => f.name === 'App.Main');
  assert.deepEqual([main?.kind, main?.module, main?.file], [FunctionKind.Managed, 'App.dll', 'Main.cs']);
  assert.deepEqual(rec.threads().map((t) => [t.name, t.osTid]), [['main', 100], ['', 200]]);
});

test('a Go-style cpu profile: no thread labels, microseconds, an unsymbolized address', () => {
  const rec = fromPprof(profile([['samples', 'count'], ['cpu', 'microseconds']], [
    { stack: [1], values: [2, 20] },
    { stack: [5, 1], values: [1, 10] },
  ]));
  assert.equal(collapsed(rec, 'cpu'), 'all threads;App.Main 20000\nall threads;App.Main;libcoreclr.so!0x1234 10000\n');
  assert.equal(collapsed(rec, 'wall'), '');
});

test('no cpu or wall: the default sample type (else the last) counts as cpu', () => {
  const types: [string, string][] = [['alloc_objects', 'count'], ['alloc_space', 'bytes'], ['inuse_space', 'bytes']];
  const rows = [{ stack: [1], values: [1, 4096, 512], tid: 9, thread: 'gc' }];
  assert.equal(collapsed(fromPprof(profile(types, rows, { defaultType: 'alloc_space' })), 'cpu'), 'gc;App.Main 4096\n');
  assert.equal(collapsed(fromPprof(profile(types, rows)), 'cpu'), 'gc;App.Main 512\n');
});

test('incomplete roots written by clrscope come back as the incomplete flag', () => {
  const st = new StringTable();
  const p = new Profile({
    sampleType: [new ValueType({ type: st.dedup('cpu'), unit: st.dedup('nanoseconds') })],
    function: [new PprofFunction({ id: 1, name: st.dedup('[incomplete stack]') }), new PprofFunction({ id: 2, name: st.dedup('A.B') })],
    location: [new Location({ id: 1, line: [new Line({ functionId: 1 })] }), new Location({ id: 2, line: [new Line({ functionId: 2 })] })],
    sample: [new Sample({ locationId: [2, 1], value: [5] }), new Sample({ locationId: [1], value: [6] })],
    stringTable: st,
  });
  const rec = fromPprof(p.encode());
  assert.equal(collapsed(rec, 'cpu'), 'all threads;[incomplete stack] 6\nall threads;[incomplete stack];A.B 5\n');
  assert.equal(rec.sampleFlags(0) & SampleFlags.Incomplete, SampleFlags.Incomplete);
  assert.ok(rec.functions().every((f) => f.name !== '[incomplete stack]' || f.id === 0xffffffff));
});

test('clrscope\'s comments give back the profiler version, commas and all, and the estimated-CPU mark', () => {
  // The EventPipe fallback's version (electron/services/recording/eventpipe-session.ts), which structs/ cannot import.
  const version = 'EventPipe SampleProfiler (runtime, live session)';
  const own = ownComment({ profilerVersion: version, pid: 7, runtimeVersion: '10.0.12', attached: true });
  assert.equal(own, 'clrscope EventPipe SampleProfiler (runtime, live session), pid 7, .NET runtime 10.0.12, attached');
  const rows = [{ stack: [1], values: [1, 0, 10], tid: 1 }];
  const estimated = fromPprof(profile(OURS, rows, { comments: [own, APPROXIMATE_CPU_COMMENT] }));
  assert.equal(estimated.meta?.profilerVersion, `clrscope ${version} (pprof)`);
  assert.equal(estimated.meta?.approximateCpu, true);
  assert.equal(estimated.meta?.flags, HelloFlags.Cpu | HelloFlags.Wall | HelloFlags.ApproximateCpu);
  const measured = fromPprof(profile(OURS, rows, { comments: [ownComment({ profilerVersion: '0.1.0', pid: 1, runtimeVersion: '8.0.1', attached: false })] }));
  assert.equal(measured.meta?.profilerVersion, 'clrscope 0.1.0 (pprof)');
  assert.equal(measured.meta?.approximateCpu, false);
  // The mark is clrscope's sentence exactly, not any comment that mentions approximation.
  const other = fromPprof(profile(OURS, rows, { comments: ['CPU time is approximate'] }));
  assert.deepEqual([other.meta?.profilerVersion, other.meta?.approximateCpu], [PPROF_IMPORT_SOURCE, false]);
  assert.equal(ownCommentSource('clrscope 0.1.0'), 'clrscope 0.1.0', 'no tail: kept whole');
  assert.equal(ownCommentSource('clrscope a, pid 1, b, pid 2, .NET runtime 9.0.0'), 'clrscope a, pid 1, b', 'the last tail is the one cut');
});

test('bad input: one sentence each, never a silently smaller profile', () => {
  const good = profile(OURS, [{ stack: [1], values: [1, 1, 1], tid: 1 }]);
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array(0), /^Not a readable pprof profile: it is empty\.$/],
    [new Uint8Array([0x1f, 0x8b, 8, 0]), /still gzip-compressed; decompress it first\.$/],
    [good.subarray(0, good.length - 3), /^Not a readable pprof profile: it ends inside a number at byte \d+ \(the file is truncated\)\.$/],
    [good.subarray(0, 30), /^Not a readable pprof profile: the field at byte \d+ claims \d+ bytes but only \d+ are left \(the file is truncated\)\.$/],
    [new TextEncoder().encode('hello, I am a text file'), /^Not a readable pprof profile: .*\(the file is not a pprof profile or is corrupt\)\.$/],
    [profile(OURS, [{ stack: [42], values: [1, 1, 1] }]), /a sample names location 42, which the profile does not define\.$/],
  ];
  for (const [bytes, message] of cases) {
    assert.throws(() => fromPprof(bytes), (err: Error) => err.name === 'PprofFormatError' && message.test(err.message), String(message));
  }
});
