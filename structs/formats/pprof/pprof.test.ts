import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { WireEncoder } from '../../wire/encoder.js';
import { goPprof, requireGo } from './go-pprof.test-support.js';
import { gzippedPprof } from './pprof.test-support.js';
import { FrameLines } from '../../profile/frame-lines.js';
import { LINE_FIXTURE_FILE, lineFixture, lineFixtureLookup } from '../../profile/line-fixture.test-support.js';

const rec = recordingFromStream([fixtureStream()]);
const work = mkdtempSync(join(tmpdir(), 'clrscope-pprof-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const profilePath = join(work, 'fixture.pb.gz');
writeFileSync(profilePath, gzippedPprof(rec));

/** `go tool pprof ARGS... FILE`. */
const pprof = (...args: string[]): string => goPprof(work, args.slice(0, -1), args[args.length - 1]);

/** Rows of `-top` as name -> [flat, cum]. */
function topRows(text: string): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  const header = text.split('\n').findIndex((l) => /^\s*flat\s+flat%\s+sum%\s+cum\s+cum%/.test(l));
  assert.ok(header >= 0, `no -top table in:\n${text}`);
  for (const line of text.split('\n').slice(header + 1)) {
    const m = /^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+)$/.exec(line);
    if (m) rows.set(m[3], [m[1], m[2]]);
  }
  return rows;
}

test('the profile decodes with the fields set as specified', () => {
  const p = Profile.decode(gunzipSync(gzippedPprof(rec)));
  const s = (i: unknown): string => p.stringTable.strings[Number(i)];
  assert.deepEqual(p.sampleType.map((t) => `${s(t.type)}/${s(t.unit)}`), ['samples/count', 'wall/nanoseconds', 'cpu/nanoseconds']);
  assert.equal(s(p.defaultSampleType), 'cpu');
  assert.equal(`${s(p.periodType?.type)}/${s(p.periodType?.unit)}`, 'cpu/nanoseconds');
  assert.equal(Number(p.period), 10_000_000);
  assert.equal(BigInt(p.timeNanos), 1_700_000_000_123_456_789n);
  assert.equal(Number(p.durationNanos), 8000);
  // One function and one location per recording function (8 wire + the synthetic root).
  assert.equal(p.function.length, 9);
  assert.equal(p.location.length, 9);
  const fn = p.function.find((f) => s(f.name) === 'App.Program.Main');
  assert.ok(fn);
  // Managed names carry no systemName (go tool pprof would "demangle" a name equal to it);
  // native ones keep the raw symbol there, apart from the library-qualified name.
  assert.equal(s(fn.systemName), '');
  const futex = p.function.find((f) => s(f.name) === 'libc.so.6!futex_wait');
  assert.equal(s(futex?.systemName), 'futex_wait');
  assert.equal(s(fn.filename), 'Program.cs');
  const loc = p.location.find((l) => Number(l.line[0].functionId) === Number(fn.id));
  assert.ok(loc);
  assert.equal(Number(loc.address), 0);
  assert.equal(s(p.mapping.find((m) => Number(m.id) === Number(loc.mappingId))?.filename), 'App.dll');
  assert.deepEqual(p.mapping.map((m) => s(m.filename)), ['App.dll', 'libc.so.6', 'libcoreclr.so', 'Lib.dll']);
  // 8 samples, two of them the same stack on the same thread -> 7 pprof samples.
  assert.equal(p.sample.length, 7);
  const first = p.sample[0];
  assert.deepEqual(first.value.map(Number), [2, 0, 30]);
  assert.deepEqual(first.label.map((l) => [s(l.key), Number(l.num), s(l.str)]), [['thread id', 100, ''], ['thread name', 0, 'main']]);
  assert.deepEqual(first.locationId.map((id) => s(p.function[Number(id) - 1].name)), ['App.Worker.Hot', 'App.Worker.Work', 'App.Program.Main']);
});

test('go tool pprof -top -sample_index=cpu: self and cumulative cpu per function', (t) => {
  if (!requireGo(t)) return;
  const out = pprof('-top', '-sample_index=cpu', profilePath);
  assert.match(out, /Type: cpu/);
  assert.match(out, /Showing nodes accounting for 47ns, 100% of 47ns total/);
  const rows = topRows(out);
  assert.deepEqual(Object.fromEntries(rows), {
    'App.Worker.Hot': ['35ns', '35ns'],
    '[libcoreclr.so]': ['7ns', '7ns'],
    'App.Worker.Recurse': ['4ns', '4ns'],
    'a;b': ['1ns', '1ns'],
    'App.Program.Main': ['0', '36ns'],
    'App.Worker.Work': ['0', '39ns'],
    '[incomplete stack]': ['0', '4ns'],
    'libc.so.6!start_thread': ['0', '7ns'],
  });
  const order = [...rows.keys()];
  assert.deepEqual(order.slice(0, 4), ['App.Worker.Hot', '[libcoreclr.so]', 'App.Worker.Recurse', 'a;b']);
});

test('go tool pprof -top -sample_index=wall: wall per function', (t) => {
  if (!requireGo(t)) return;
  const out = pprof('-top', '-sample_index=wall', profilePath);
  assert.match(out, /Type: wall/);
  assert.deepEqual(Object.fromEntries(topRows(out)), {
    'libc.so.6!futex_wait': ['100ns', '100ns'],
    'App.Worker.Hot': ['50ns', '50ns'],
    '[incomplete stack]': ['30ns', '30ns'],
    'App.Program.Main': ['0', '150ns'],
    'App.Worker.Work': ['0', '150ns'],
  });
});

test('go tool pprof -traces: merged samples carry thread id and name labels', (t) => {
  if (!requireGo(t)) return;
  const out = pprof('-traces', profilePath);
  const blocks = out.split(/^-+\+-+$/m).slice(1).map((b) => b.trim()).filter((b) => b !== '');
  assert.equal(blocks.length, 7);
  const norm = (b: string): string => b.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).join(' | ');
  assert.deepEqual(blocks.map(norm), [
    'thread name: main | thread id: 100 | 30ns App.Worker.Hot | App.Worker.Work | App.Program.Main',
    'thread id: 200 | 0 libc.so.6!futex_wait | App.Worker.Work | App.Program.Main',
    'thread name: main | thread id: 300 | 5ns App.Worker.Hot | App.Worker.Work | App.Program.Main',
    'thread id: 200 | 7ns [libcoreclr.so] | libc.so.6!start_thread',
    'thread name: main | thread id: 100 | 4ns App.Worker.Recurse | App.Worker.Recurse | App.Worker.Work | [incomplete stack]',
    'thread id: 200 | 0 [incomplete stack]',
    'thread name: main | thread id: 100 | 1ns a;b | App.Program.Main',
  ]);
});

test('go tool pprof -raw: header fields, period and nanosecond start time', (t) => {
  if (!requireGo(t)) return;
  const out = pprof('-raw', profilePath);
  assert.match(out, /^PeriodType: cpu nanoseconds$/m);
  assert.match(out, /^Period: 10000000$/m);
  assert.match(out, /^Time: 2023-11-14 22:13:20\.123456789 \+0000 UTC$/m);
  assert.match(out, /^Duration: 8µs$/m);
  assert.match(out, /^samples\/count wall\/nanoseconds cpu\/nanoseconds\[dflt\]$/m);
  assert.match(out, /^\d+: 0x0\/0x0\/0x0 libcoreclr\.so \s*\[FN\]$/m);
});

test('go tool pprof reads realistic magnitudes: 3 s of cpu on two threads, one cut stream', (t) => {
  if (!requireGo(t)) return;
  const enc = new WireEncoder().preamble().hello({ pid: 7, flags: 1, mono: 0, unixNs: 0n, intervalNs: 10_000_000, wallThreadsPerTick: 0, runtimeVersion: 'x', profilerVersion: 'y' })
    .function({ functionId: 0, kind: 0, name: 'Zero.Id', module: 'Z.dll', file: '' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'a' })
    .thread({ threadId: 2, osTid: 22, clrThreadId: 2, mono: 0, name: 'b' });
  for (let i = 0; i < 300; i++) enc.sample({ mono: (i + 1) * 10_000_000, threadId: 1 + (i % 2), flags: 1, cpuNs: 10_000_000, wallNs: 0, frames: [0] });
  const path = join(work, 'big.pb.gz');
  writeFileSync(path, gzippedPprof(recordingFromStream([enc.bytes()])));
  const out = pprof('-top', '-sample_index=cpu', '-unit=ms', path);
  assert.deepEqual(topRows(out).get('Zero.Id'), ['3000ms', '3000ms']);
  const traces = pprof('-traces', path);
  assert.match(traces, /thread name:\s+a\s+thread id:\s+11\s+1\.50s\s+Zero\.Id/);
  assert.match(traces, /thread name:\s+b\s+thread id:\s+22\s+1\.50s\s+Zero\.Id/);
  assert.match(pprof('-raw', path), /^Comment: The stream was cut before its END record/m);
});

test('go tool pprof -top keeps generic arguments, async state machines and C++ templates whole', (t) => {
  // go tool pprof strips <...> from a name that equals its systemName (it takes it for an
  // undemangled C++ symbol): these names must come out exactly as the runtime gave them.
  const names = [
    'Shop.SimulatedDb+<QueryAsync>d__0.MoveNext',
    'System.Collections.Generic.List<int>.Add',
    'Shop.Cache<string,Shop.Order>.Get<Shop.Key>',
    'Shop.Program.<Main>$',
    'Shop.Program+<>c__DisplayClass0_0.<Run>b__0',
  ];
  const enc = new WireEncoder().preamble().hello({ pid: 7, flags: 1, mono: 0, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: 'x', profilerVersion: 'y' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'a' });
  names.forEach((name, i) => enc.function({ functionId: i + 1, kind: 0, name, module: 'Shop.dll', file: '' }));
  enc.function({ functionId: 99, kind: 1, name: 'std::vector<int>::push_back(int const&)', module: 'libshop.so', file: '' });
  const frames = [...names.map((_, i) => i + 1), 99];
  frames.forEach((leaf, i) => enc.sample({ mono: i + 1, threadId: 1, flags: 1, cpuNs: (i + 1) * 1000, wallNs: 0, frames: [leaf] }));
  enc.end({ mono: 100, reason: 0 });
  const path = join(work, 'names.pb.gz');
  writeFileSync(path, gzippedPprof(recordingFromStream([enc.bytes()])));
  if (!requireGo(t)) return;
  const rows = topRows(pprof('-top', '-sample_index=cpu', path));
  assert.deepEqual([...rows.keys()].sort(), [...names, 'libshop.so!std::vector<int>::push_back(int const&)'].sort());
});

test('with source lines, frames get a location per line and functions their file: go tool pprof -lines reads them', (t) => {
  const lined = lineFixture();
  const profile = Profile.decode(gunzipSync(gzippedPprof(lined, new FrameLines(lined, lineFixtureLookup))));
  const strings = profile.stringTable.strings;
  const hot = profile.function.find((f) => strings[Number(f.name)] === 'App.Program.Hot')!;
  assert.equal(strings[Number(hot.filename)], LINE_FIXTURE_FILE);
  const hotLines = profile.location.filter((l) => l.line[0].functionId === hot.id).map((l) => Number(l.line[0].line)).sort((a, b) => a - b);
  assert.deepEqual(hotLines, [0, 12, 14], 'one location per known line, and the function\'s own for frames without one');
  if (!requireGo(t)) return;
  const path = join(work, 'lines.pb.gz');
  writeFileSync(path, gzippedPprof(lined, new FrameLines(lined, lineFixtureLookup)));
  const rows = pprof('-top', '-lines', '-sample_index=cpu', path);
  assert.match(rows, new RegExp(`30ms\\s+[\\d.]+%\\s+[\\d.]+%\\s+30ms\\s+[\\d.]+%\\s+App\\.Program\\.Hot ${LINE_FIXTURE_FILE}:12`));
  assert.match(rows, new RegExp(`10ms\\s+[\\d.]+%\\s+[\\d.]+%\\s+10ms\\s+[\\d.]+%\\s+App\\.Program\\.Hot ${LINE_FIXTURE_FILE}:14`));
  assert.match(rows, new RegExp(`0\\s+0%\\s+[\\d.]+%\\s+47ms\\s+[\\d.]+%\\s+App\\.Program\\.Main ${LINE_FIXTURE_FILE}:3`));
});

test('a recording whose connection the program took says so in a comment', () => {
  const hello = { pid: 7, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'p' };
  const lost = recordingFromStream([new WireEncoder().preamble().hello(hello).end({ mono: 1, reason: 4, descriptor: 803, descriptorLoss: 1 }).bytes()]);
  const p = Profile.decode(gunzipSync(gzippedPprof(lost)));
  const comments = p.comment.map((i) => p.stringTable.strings[Number(i)]);
  assert.ok(comments.some((c) => c.startsWith("The program closed clrscope's connection (descriptor 803)")), comments.join(' | '));
});
