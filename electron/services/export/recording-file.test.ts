import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { fromPprof } from '../../../structs/formats/pprof/from-pprof.js';
import { dumpRecording } from '../../../structs/profile/recording-dump.js';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { HelloFlags } from '../../../structs/wire/records.js';
import { EVENTPIPE_PROFILER_VERSION } from '../recording/eventpipe-session.js';
import { UserError } from '../errors/user-error.js';
import { cpuIsEstimated } from '../workstation/imported-cpu.js';
import { writeFileAtomically } from './atomic-file.js';
import { gzippedPprof } from '../../../structs/formats/pprof/pprof.test-support.js';
import { readRecordingFile, writeRecordingFile } from './recording-file.js';
import { extensionList, formatOfPath } from '../../../structs/formats/registry.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-recording-file-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const rec = recordingFromStream([fixtureStream()]);
const counters: CountersPoint[] = [{ timeMs: 1_700_000_000_124, values: { gc: { genCollections0: 2 } } }];
const collapsed = (r: Recording, metric: 'cpu' | 'wall' | 'samples'): string => toCollapsed(r, { metric, groupByThread: true });

test('formats follow the extension, longest match first', () => {
  assert.equal(formatOfPath('a.speedscope.json', 'write'), 'speedscope');
  assert.equal(formatOfPath('a.json', 'read'), 'speedscope');
  assert.equal(formatOfPath('a.json', 'write'), undefined);
  assert.equal(formatOfPath('A.PB.GZ', 'write'), 'pprof');
  assert.equal(formatOfPath('x.etlx', 'read'), undefined);
  assert.equal(formatOfPath('.clrscope', 'write'), undefined);
  assert.equal(extensionList('write'), '.clrscope, .nettrace, .etlx, .speedscope.json, .pb.gz, .pb, .pprof, .collapsed, .folded, .html, .htm or .svg');
});

test('.clrscope: written in pieces, read back with everything', async () => {
  const path = join(dir, 'all.clrscope');
  const steps: string[] = [];
  await writeRecordingFile(path, rec, counters, { progress: (s, d, t) => steps.push(`${s} ${d}/${t}`) });
  assert.deepEqual(steps, ['writing 8/8']);
  const opened = await readRecordingFile(path, (s, d, t) => steps.push(`${s} ${d}/${t}`));
  assert.equal(steps[steps.length - 1], `reading ${readFileSync(path).length}/${readFileSync(path).length}`);
  assert.equal(opened.format, 'clrscope');
  assert.equal(dumpRecording(opened.recording), dumpRecording(rec));
  assert.deepEqual(opened.counters, counters);
});

test('a write stopped between pieces (a cancelled export) leaves no file and no partial file', async () => {
  const sub = mkdtempSync(join(dir, 'stopped-'));
  const path = join(sub, 'stopped.speedscope.json');
  // A whole write asks before each piece and once at the end; stopped at its last piece here.
  let pieces = 0;
  await writeRecordingFile(path, rec, counters, { stop: () => { pieces += 1; } });
  assert.ok(pieces >= 2, `asked ${pieces} times`);
  rmSync(path);
  let asked = 0;
  const stop = (): void => {
    asked += 1;
    if (asked === pieces - 1) throw new Error('cancelled');
  };
  await assert.rejects(writeRecordingFile(path, rec, counters, { stop }), /^Error: cancelled$/);
  assert.deepEqual(readdirSync(sub), []);
  await writeRecordingFile(path, rec, counters);
  assert.deepEqual(readdirSync(sub), ['stopped.speedscope.json']);
});

test('pprof: our export imports back with the same cpu, wall and sample counts per thread, gzipped or not', async () => {
  for (const name of ['p.pb.gz', 'p.pprof']) {
    const path = join(dir, name);
    await writeRecordingFile(path, rec, counters);
    const back = (await readRecordingFile(path)).recording;
    for (const metric of ['cpu', 'wall', 'samples'] as const) assert.equal(collapsed(back, metric), collapsed(rec, metric), `${name} ${metric}`);
  }
  writeFileSync(join(dir, 'plain.pb'), gunzipSync(gzippedPprof(rec)));
  const plain = (await readRecordingFile(join(dir, 'plain.pb'))).recording;
  assert.equal(collapsed(plain, 'samples'), collapsed(rec, 'samples'));
  assert.equal(collapsed(fromPprof(gunzipSync(gzippedPprof(rec))), 'cpu'), collapsed(rec, 'cpu'));
});

test('speedscope: written in pieces; cpu and wall come back per thread', async () => {
  const path = join(dir, 's.speedscope.json');
  await writeRecordingFile(path, rec, counters, { metric: 'both' });
  const back = (await readRecordingFile(path)).recording;
  assert.equal(collapsed(back, 'cpu'), collapsed(rec, 'cpu'));
  assert.equal(collapsed(back, 'wall'), collapsed(rec, 'wall'));
  await writeRecordingFile(join(dir, 'w.speedscope.json'), rec, [], { metric: 'wall' });
  assert.equal(collapsed((await readRecordingFile(join(dir, 'w.speedscope.json'))).recording, 'cpu'), '');
});

test('an EventPipe recording\'s estimated CPU survives a pprof or speedscope round trip; a measured one stays measured', async () => {
  const enc = new WireEncoder().preamble().hello({
    pid: 7, flags: HelloFlags.Cpu | HelloFlags.Wall | HelloFlags.Attached | HelloFlags.ApproximateCpu, mono: 0, unixNs: 0n,
    intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: EVENTPIPE_PROFILER_VERSION,
  })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'main' })
    .sample({ mono: 1_000_000, threadId: 1, flags: 1, cpuNs: 1_000_000, wallNs: 0, frames: [1] });
  const estimated = recordingFromStream([enc.bytes()]);
  assert.equal(estimated.meta?.approximateCpu, true);
  assert.ok(EVENTPIPE_PROFILER_VERSION.includes(','), 'the case this guards: a version with a comma of its own');
  for (const name of ['e.pb.gz', 'e.speedscope.json']) {
    const path = join(dir, name);
    await writeRecordingFile(path, estimated, []);
    const opened = await readRecordingFile(path);
    assert.equal(opened.recording.meta?.approximateCpu, true, name);
    assert.equal(cpuIsEstimated(opened.format, opened.recording), true, name);
    assert.equal(collapsed(opened.recording, 'cpu'), collapsed(estimated, 'cpu'), name);
    // Saved again, it is still estimated.
    const again = join(dir, `again-${name}`);
    await writeRecordingFile(again, opened.recording, []);
    assert.equal((await readRecordingFile(again)).recording.meta?.approximateCpu, true, `${name} twice`);
  }
  assert.equal((await readRecordingFile(join(dir, 'e.pb.gz'))).recording.meta?.profilerVersion, `clrscope ${EVENTPIPE_PROFILER_VERSION} (pprof)`);
  for (const name of ['p.pb.gz', 's.speedscope.json']) {
    assert.equal((await readRecordingFile(join(dir, name))).recording.meta?.approximateCpu, false, name);
  }
});

test('bad input: one sentence, naming the file', async () => {
  const write = (name: string, bytes: Uint8Array | string): string => {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    return p;
  };
  const good = readFileSync(join(dir, 'all.clrscope'));
  const pb = gzippedPprof(rec);
  const cases: [string, RegExp][] = [
    [join(dir, 'missing.clrscope'), /^Cannot read .*missing\.clrscope: no such file\.$/],
    [dir, /^Unknown input format for .*: use a \.clrscope, \.nettrace, \.speedscope\.json, \.pb\.gz, \.pb or \.pprof file\.$/],
    [write('short.clrscope', good.subarray(0, good.length - 1)), /^Cannot read .*short\.clrscope: the clrscope file is truncated: it ends at byte \d+, inside the record that starts at byte \d+\.$/],
    [write('magic.clrscope', 'CLRSCOPX and more bytes'), /^Cannot read .*magic\.clrscope: not a clrscope stream: the first 8 bytes at byte 0 are not the magic "CLRSCOPE"\.$/],
    [write('newer.clrscope', (() => { const b = Buffer.from(good); b[8] = 9; return b; })()), /^Cannot read .*newer\.clrscope: unsupported clrscope stream version 9 at byte 8; this reader understands versions 1 and 2\.$/],
    [write('cut.pb.gz', pb.subarray(0, pb.length - 10)), /^Cannot read .*cut\.pb\.gz: its gzip data is truncated or corrupt \(unexpected end of file\)\.$/],
    [write('text.pb', 'not protobuf at all, sorry'), /^Cannot read .*text\.pb: not a readable pprof profile: .*\.$/],
    [write('cut.speedscope.json', readFileSync(join(dir, 's.speedscope.json'), 'utf8').slice(0, 50)), /^Cannot read .*cut\.speedscope\.json: not a readable speedscope file: the text is not valid JSON \(.*\)\.$/],
    [write('empty.json', ''), /^Cannot read .*empty\.json: not a readable speedscope file: the text is not valid JSON/],
  ];
  for (const [path, message] of cases) {
    await assert.rejects(readRecordingFile(path), (err: Error) => err instanceof UserError && message.test(err.message) && !err.message.includes('\n'), String(message));
  }
});

test('opening a file that is not a recording never repeats what the file says', async () => {
  // What a private file might hold; opened by mistake (or by whoever holds a browser-mode
  // token), its contents must not come back in the error.
  const secret = 'root:x:0:0:SECRET-4f1d9c:/root:/bin/bash\n'.repeat(20);
  for (const ext of ['.clrscope', '.nettrace', '.pb', '.pb.gz', '.pprof', '.speedscope.json']) {
    const path = join(dir, `private${ext}`);
    writeFileSync(path, secret);
    await assert.rejects(readRecordingFile(path), (err: Error) => {
      assert.ok(err instanceof UserError, `${ext}: ${String(err)}`);
      assert.ok(!/SECRET|root:x/.test(err.message), `${ext}: ${err.message}`);
      return true;
    });
  }
  // JSON that parses but is not speedscope: its values are not quoted either.
  const json = join(dir, 'values.speedscope.json');
  writeFileSync(json, JSON.stringify({ shared: { frames: [] }, profiles: [{ type: 'SECRET-4f1d9c', unit: 'none', startValue: 0, endValue: 1 }] }));
  await assert.rejects(readRecordingFile(json), (err: Error) => !err.message.includes('SECRET') && /has type a string/.test(err.message));
});

test('a failed write leaves no file and no partial file behind', async () => {
  const path = join(dir, 'never.clrscope');
  function* failing(): Generator<Uint8Array> {
    yield new Uint8Array([1, 2, 3]);
    throw new Error('the writer broke');
  }
  await assert.rejects(writeFileAtomically(path, failing()), /the writer broke/);
  assert.equal(existsSync(path), false);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('partial')), []);
  await assert.rejects(writeRecordingFile(join(dir, 'no', 'such', 'dir.pb.gz'), rec, []), /^UserError: Cannot write .*dir\.pb\.gz: the folder .* does not exist\.$/);
  await assert.rejects(writeRecordingFile(join(dir, 'x.txt'), rec, []), /Unknown output format for .*x\.txt/);
});

test('a .clrscope read summed for pprof keeps no samples, and gives the pprof a whole read gives', async () => {
  const rec = recordingFromStream([fixtureStream()]);
  const path = join(dir, 'summed.clrscope');
  await writeRecordingFile(path, rec, []);
  const whole = await readRecordingFile(path);
  const summed = await readRecordingFile(path, undefined, { summed: true });
  assert.equal(whole.sums, undefined);
  assert.ok(summed.sums !== undefined);
  assert.equal(summed.recording.sampleCount, rec.sampleCount);
  assert.throws(() => summed.recording.sampleColumns());
  assert.equal(summed.sums.list.reduce((n, s) => n + s.samples, 0), rec.sampleCount);
  assert.deepEqual(gunzipSync(gzippedPprof(summed.recording, undefined, { summed: summed.sums })), gunzipSync(gzippedPprof(whole.recording)));
  // Formats read whole ignore the option.
  const pprofPath = join(dir, 'summed.pb.gz');
  await writeRecordingFile(pprofPath, whole.recording, []);
  assert.equal((await readRecordingFile(pprofPath, undefined, { summed: true })).sums, undefined);
});

test('readers are picked by the file\'s first bytes, then by its extension', async () => {
  // A .clrscope file under a pprof name, a pprof profile under no known name: their content says what they are.
  const misnamed = join(dir, 'misnamed.pb.gz');
  writeFileSync(misnamed, readFileSync(join(dir, 'all.clrscope')));
  const opened = await readRecordingFile(misnamed);
  assert.equal(opened.format, 'clrscope');
  assert.equal(dumpRecording(opened.recording), dumpRecording(rec));
  const unnamed = join(dir, 'profile.data');
  writeFileSync(unnamed, gzippedPprof(rec));
  assert.equal((await readRecordingFile(unnamed)).format, 'pprof');
  // Bytes no format claims: the extension decides, and its reader's sentence says what is wrong.
  writeFileSync(join(dir, 'junk.nettrace'), 'not a trace at all');
  await assert.rejects(readRecordingFile(join(dir, 'junk.nettrace')), /^UserError: Cannot read .*junk\.nettrace: /);
  writeFileSync(join(dir, 'junk.bin'), 'not a trace at all');
  await assert.rejects(readRecordingFile(join(dir, 'junk.bin')), /^UserError: Unknown input format for .*junk\.bin: use a \.clrscope, \.nettrace, \.speedscope\.json, \.pb\.gz, \.pb or \.pprof file\.$/);
});
