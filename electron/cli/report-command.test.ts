import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { streamFromCollapsed } from '../../structs/formats/collapsed/collapsed-stream.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import type { Report } from '../../structs/analysis/report-model.js';
import { UserError } from '../services/errors/user-error.js';
import { planReport, runReport, type ReportIo } from './report-command.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-report-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function save(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, saveRecording(recordingFromStream([streamFromCollapsed(text, { end: true })]), []));
  return path;
}

const before = save('before.clrscope', `
  t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Heavy 75000000 @1
  t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Light 25000000 @2
`);
const after = save('after.clrscope', `
  t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Heavy 50000000 @1
  t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Light 50000000 @2
  t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Light;System.Linq.Enumerable.ToList|System.Linq.dll;System.Linq.Enumerable.Fill|System.Linq.dll 0 @3 wall=9
`);

function capture(columns?: number): ReportIo & { lines: string[] } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`), lines, ...(columns !== undefined ? { columns } : {}) };
}

async function json(argv: string[]): Promise<Report> {
  const io = capture();
  assert.equal(await runReport([...argv, '--format', 'json'], io), 0);
  return JSON.parse(io.lines.join('\n')) as Report;
}

test('json: functions with self and total under default folding, stable field names', async () => {
  const r = await json([after]);
  assert.equal(r.clrscopeReport, 1);
  assert.equal(r.sampleType, 'cpu');
  assert.equal(r.unit, 'nanoseconds');
  assert.deepEqual(r.fold, { runtime: true, myCode: false, groupBy: 'none', patterns: [] });
  assert.equal(r.totalValue, 100_000_000);
  assert.equal(r.sampleCount, 2);
  assert.deepEqual(r.functions!.map((f) => [f.name, f.kind, f.self, f.selfPercent, f.total, f.totalPercent, f.selfSamples, f.totalSamples]), [
    ['App.Heavy', 'managed', 50_000_000, 50, 50_000_000, 50, 1, 1],
    ['App.Light', 'managed', 50_000_000, 50, 50_000_000, 50, 1, 1],
    ['App.Main', 'managed', 0, 0, 100_000_000, 100, 0, 2],
    ['[runtime]', 'native', 0, 0, 100_000_000, 100, 0, 2],
  ]);
  assert.equal(r.functions![0].module, 'App.dll');
});

test('json: wall time, folding words, callers and callees', async () => {
  const r = await json([after, '--sample-type', 'wall', '--fold', 'mycode', '--callees', 'Light', '--callers', 'App.Light', '--min-percent', '0']);
  assert.equal(r.functions, undefined, 'no table unless --top is given alongside');
  assert.equal(r.callees!.name, 'App.Light');
  assert.deepEqual(r.callees!.tree, {
    name: 'App.Light', self: 50_000_000, total: 50_000_009,
    children: [{ name: 'System.Linq.Enumerable.ToList', self: 9, total: 9, children: [] }],
  });
  assert.deepEqual(r.callers!.tree.children.map((c) => c.name), ['App.Main']);
  assert.deepEqual(r.callers!.tree.children[0].children, [], 'my code only: nothing above App.Main');
});

test('json: diff of two files, and of two windows of one file', async () => {
  const r = await json([after, '--diff', before, '--tree']);
  const d = r.diff!;
  assert.deepEqual([d.normalize, d.beforeTotal, d.afterTotal], ['share', 100_000_000, 100_000_000]);
  assert.deepEqual(d.functions.slice(0, 2).map((f) => [f.name, f.delta.self]), [['App.Heavy', -25], ['App.Light', 25]]);
  assert.deepEqual(d.tree!.children[0].children[0].children.map((c) => [c.name, c.before, c.after, c.delta]), [
    ['App.Heavy', 75_000_000, 50_000_000, -25],
    ['App.Light', 25_000_000, 50_000_000, 25],
  ]);
  const w = await json([before, '--diff', before, '--base-window', ':0.0015', '--window', '0.0015:', '--normalize', 'absolute']);
  assert.deepEqual(w.diff!.functions.slice(0, 2).map((f) => [f.name, f.before.self, f.after.self, f.delta.self]), [
    ['App.Heavy', 75_000_000, 0, -75_000_000],
    ['App.Light', 0, 25_000_000, 25_000_000],
  ]);
});

test('text fits the width given; csv quotes names with commas', async () => {
  const io = capture(60);
  await runReport([after, '--tree'], io);
  const text = io.lines.join('\n').split('\n');
  assert.match(text[0], /cpu time 100\.0 ms in 2 samples; whole recording; folding: runtime$/);
  for (const line of text.slice(1)) assert.ok(line.length <= 60, `${line.length}: ${line}`);
  assert.ok(text.some((l) => /^ 50\.0%   50\.0 ms {8}App\.Heavy$/.test(l)), text.join('\n'));
  const comma = save('comma.clrscope', 't;App.Cache<System.String,System.Int32>.Get 5');
  const csv = capture();
  await runReport([comma, '--format', 'csv'], csv);
  assert.equal(csv.lines[0], 'name,module,kind,self,self_percent,total,total_percent,self_samples,total_samples\n"App.Cache<System.String,System.Int32>.Get",App.dll,managed,5,100,5,100,1,1');
});

test('arguments and names: one sentence for each mistake', async () => {
  const cases: [string[], RegExp][] = [
    [[], /^No recording given/],
    [[before, after], /^Report reads one recording, not 2/],
    [[before, '--format', 'xml'], /^--format must be text, json or csv, not 'xml'\.$/],
    [[before, '--sample-type', 'heap'], /^--sample-type must be cpu, wall or samples/],
    [[before, '--window', '5:2'], /ends before it starts/],
    [[before, '--window', 'abc'], /takes START:END in seconds/],
    [[before, '--fold', 'bogus'], /--fold does not know 'bogus'/],
    [[before, '--base-window', '1:2'], /--base-window needs --diff/],
    [[before, '--top', '1.5'], /--top must be a whole number from 0/],
    [['x.txt'], /^Unknown input format for x\.txt/],
    [[before, '--format', 'csv', '--tree', '--callers', 'A'], /csv prints one table/],
    [[before, '--source', ' '], /^--source takes a function name/],
    [[before, '--source', 'App.Heavy', '--diff', after], /^--source shows one recording's lines: it does not go with --diff\.$/],
    [[before, '--format', 'csv', '--tree', '--source', 'App.Heavy'], /csv prints one table: ask for one of --callers, --callees, --tree or --source/],
  ];
  for (const [argv, message] of cases) assert.throws(() => planReport(argv), (err: Error) => err instanceof UserError && message.test(err.message), String(message));
  await assert.rejects(runReport([before, '--callers', 'Nowhere'], capture()), /--callers Nowhere: no function of that name has samples/);
  await assert.rejects(runReport([before, '--callers', 'App.'], capture()), /--callers App\. matches several functions; give one exactly, e\.g\. 'App\.Main'/);
  await assert.rejects(runReport([join(dir, 'missing.clrscope')], capture()), /^UserError: Cannot read .*missing\.clrscope: /);
  await assert.rejects(runReport([before, '--sample-type', 'wall', '--diff', save('cpu-only.clrscope', 't;A 1 wall=0')], capture()), /cpu-only\.clrscope has no wall values to compare: its sample types are cpu, samples\./);
});

test('--source on a recording without IL offsets: the function\'s time, at no known line, and why', async () => {
  const r = await json([after, '--source', 'Heavy']);
  assert.equal(r.functions, undefined);
  assert.deepEqual(r.source, { name: 'App.Heavy', self: 50_000_000, total: 50_000_000, file: null, unknownSelf: 50_000_000, unknownTotal: 50_000_000, lines: [] });
  // Its frames name no IL offset (collapsed stacks): no module's PDB is even looked for.
  assert.deepEqual(r.lineNotes, []);
  const text = capture();
  await runReport([after, '--source', 'App.Main'], text);
  const out = text.lines.join('\n');
  assert.match(out, /Source lines of App\.Main: self 0\.0% 0 ns, total 100\.0% 100\.0 ms/);
  assert.match(out, /No line of it is known/);
  await assert.rejects(runReport([after, '--source', 'Nowhere'], capture()), /--source Nowhere: no function of that name has samples/);
});

test('the [GC] frame\'s total, from collector threads and threads collecting, as its own line; none without one', async () => {
  const gc = save('gc.clrscope', `
    t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Churn 60000000 @1
    t;libc.so.6!start_thread;[libcoreclr.so];App.Main;App.Churn;[GC];[libcoreclr.so] 30000000 @2
    .NET Server GC;[GC];libc.so.6!start_thread;[libcoreclr.so] 10000000 @3
  `);
  const r = await json([gc]);
  assert.deepEqual(r.gc, { total: 40_000_000, totalPercent: 40, totalSamples: 2 });
  assert.equal((await json([before])).gc, undefined);
  const io = capture(100);
  assert.equal(await runReport([gc], io), 0);
  assert.match(io.lines.join('\n'), /^Garbage collection \(\[GC\] frames\): 40\.0% of cpu time, 40\.0 ms in 2 samples$/m);
});

test('--requests: a sampled recording says so after the table and in json\'s "tracking"; one that recorded every request does not', async () => {
  const { requestFixtureStream } = await import('../../structs/profile/request-fixture-stream.test-support.js');
  const file = (name: string, stream: Uint8Array): string => {
    const path = join(dir, name);
    writeFileSync(path, stream);
    return path;
  };
  // Two windows of 10 ms a second apart (relative to the stream's start), 166 requests/s budget.
  const sampled = file('sampled.clrscope', requestFixtureStream(5, [
    { startMono: 0, endMono: 10_000_000, begun: 300, cut: 1, maxPerS: 166 },
    { startMono: 1_000_000_000, endMono: 1_010_000_000, begun: 112, cut: 2, maxPerS: 166 },
  ]));
  const text = capture();
  assert.equal(await runReport([sampled, '--requests'], text), 0);
  const out = text.lines.join('\n');
  assert.match(out, /^endpoint +count/m);
  assert.match(out, /\n\nSampled: the profiler listened for requests 2\.0% of the time \(budget 166 requests\/s; record --requests-rate all records every request\); the counts are of the 412 requests begun while it listened, 3 of which were still running when it stopped and are not counted\.\n$/);
  const js = capture();
  assert.equal(await runReport([sampled, '--requests', '--format', 'json'], js), 0);
  const parsed = JSON.parse(js.lines.join('\n')) as { requests: { endpoint: string }[]; tracking: unknown };
  assert.deepEqual(parsed.requests.map((r) => r.endpoint), ['GET /a', 'GET /b']);
  assert.deepEqual(parsed.tracking, { fraction: 0.019802, trackedMs: 20, spanMs: 1010, windows: 2, begun: 412, cut: 3, maxPerS: 166, sampled: true });

  const whole = file('whole.clrscope', requestFixtureStream(5, [{ startMono: 0, endMono: 700, begun: 2, cut: 0, maxPerS: 0 }]));
  const wholeText = capture();
  await runReport([whole, '--requests'], wholeText);
  assert.doesNotMatch(wholeText.lines.join('\n'), /Sampled/);
  const wholeJs = capture();
  await runReport([whole, '--requests', '--format', 'json'], wholeJs);
  assert.equal((JSON.parse(wholeJs.lines.join('\n')) as { tracking: { sampled: boolean } }).tracking.sampled, false);
  // A recording without windows: no "tracking" key at all.
  const none = capture();
  await runReport([file('none.clrscope', requestFixtureStream(5)), '--requests', '--format', 'json'], none);
  assert.deepEqual(Object.keys(JSON.parse(none.lines.join('\n')) as object), ['requests']);
});
