import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { fromSpeedscope } from '../../structs/formats/speedscope/from-speedscope.js';
import { toCollapsed } from '../../structs/formats/collapsed/to-collapsed.js';
import { fixtureStream } from '../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { UserError } from '../services/errors/user-error.js';
import { planConvert, ProgressLine, runConvert, type ConvertIo } from './convert-command.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-convert-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const rec = recordingFromStream([fixtureStream()]);
const input = join(dir, 'in.clrscope');
writeFileSync(input, saveRecording(rec, [{ timeMs: 1, values: { gc: { a: 1 } } }]));

function capture(extra: Partial<ConvertIo> = {}): ConvertIo & { lines: string[]; raw: string[] } {
  const lines: string[] = [];
  const raw: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), progress: (t) => raw.push(t), lines, raw, ...extra };
}

test('convert writes the output and says what it holds and what the format left out', async () => {
  const io = capture();
  const out = join(dir, 'out.speedscope.json');
  assert.equal(await runConvert([input, '-o', out], io), 0);
  assert.equal(toCollapsed(fromSpeedscope(readFileSync(out, 'utf8')), { metric: 'cpu', groupByThread: true }), toCollapsed(rec, { metric: 'cpu', groupByThread: true }));
  assert.deepEqual(io.lines, [
    `clrscope: wrote ${out} (speedscope JSON, 1,203 bytes) from ${input}: 8 samples on 3 threads, 1 counters reading. Note: speedscope keeps cpu and wall weights per thread in time order: no sample times, sample counts, GC pauses or counters.`,
  ]);
  const io2 = capture();
  assert.equal(await runConvert([out, '-o', join(dir, 'back.clrscope')], io2), 0);
  assert.match(io2.lines[0], /: 8 samples on 3 threads\.$/);
});

test('arguments: one sentence for each mistake', () => {
  const cases: [string[], RegExp][] = [
    [[], /^No input file/],
    [[input], /^No output file: give one with -o/],
    [[input, 'b.clrscope', '-o', 'c.pb.gz'], /^Convert takes one input file, not 2/],
    [[input, '-o', 'x.doc'], /^Unknown output format for x\.doc: use a \.clrscope, /],
    [['in.txt', '-o', 'x.pb.gz'], /^Unknown input format for in\.txt: use a \.clrscope, /],
    [[input, '-o', input], /is the input file: give another name/],
    [[input, '-o', 'x.speedscope.json', '--metric', 'heap'], /^--metric must be cpu, wall or both, not 'heap'\.$/],
    [[input, '--frobnicate'], /Unknown option '--frobnicate' \(see clrscope convert --help\)\.$/],
  ];
  for (const [argv, message] of cases) assert.throws(() => planConvert(argv), (err: Error) => err instanceof UserError && message.test(err.message), String(message));
  assert.equal(planConvert(['--help']), 'help');
});

test('an unwritable output is reported before the input is even looked at', async () => {
  await assert.rejects(runConvert([join(dir, 'missing.clrscope'), '-o', join(dir, 'nope', 'x.pb.gz')], capture()), /^UserError: Cannot write .*x\.pb\.gz: the folder .*nope does not exist\.$/);
  await assert.rejects(runConvert([join(dir, 'missing.clrscope'), '-o', join(dir, 'x.pb.gz')], capture()), /^UserError: Cannot read .*missing\.clrscope: no such file\.$/);
  assert.equal(existsSync(join(dir, 'x.pb.gz')), false);
});

test('progress: a line rewritten in place on a terminal, every 5 s elsewhere, quiet when quick', () => {
  let now = 0;
  const tty = capture({ isTty: true, now: () => now });
  const line = new ProgressLine(tty, { reading: 'a.clrscope', writing: 'b.pb.gz' });
  line.update('reading', 0, 10 * (1 << 20));
  now = 50;
  line.update('reading', 1 << 20, 10 * (1 << 20));
  now = 150;
  line.update('reading', 5 * (1 << 20), 10 * (1 << 20));
  now = 300;
  line.update('writing', 3, 4);
  line.end();
  assert.deepEqual(tty.raw, [
    '\r\x1b[Kclrscope: reading a.clrscope: 0% (0 of 10 MB)',
    '\r\x1b[Kclrscope: reading a.clrscope: 50% (5 of 10 MB)',
    '\r\x1b[Kclrscope: writing b.pb.gz: 75%',
    '\r\x1b[K',
  ]);
  now = 0;
  const pipe = capture({ isTty: false, now: () => now });
  const quiet = new ProgressLine(pipe, { reading: 'a', writing: 'b' });
  for (now = 0; now < 4000; now += 500) quiet.update('reading', now, 12_000);
  assert.deepEqual(pipe.lines, []);
  for (; now <= 12_000; now += 500) quiet.update('reading', now, 12_000);
  assert.deepEqual(pipe.lines, ['clrscope: reading a: 41% (0 of 0 MB)', 'clrscope: reading a: 83% (0 of 0 MB)']);
  assert.deepEqual(pipe.raw, []);
});
