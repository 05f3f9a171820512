// openRecording and the exports of the workstation, on real files: nothing here needs the
// profiler or a .NET program, so the whole path from a file to the bytes a page decodes runs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Function as PprofFunction, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import type { CountersPoint, SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import { dumpRecording } from '../../../structs/profile/recording-dump.js';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { readRecordingFile, writeRecordingFile } from '../export/recording-file.js';
import { UserError } from '../errors/user-error.js';
import { cpuIsEstimated } from './imported-cpu.js';
import { createWorkstationService } from './workstation-service.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-open-recording-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const rec = recordingFromStream([fixtureStream({ end: true })]);
const counters: CountersPoint[] = [
  { timeMs: 1_700_000_000_200, values: { gc: { genCollections0: 1 } } },
  { timeMs: 1_700_000_000_450, values: { gc: { genCollections0: 3 } } },
];
const fixture = (path: string): Buffer => readFileSync(new URL(`../../../../structs/formats/${path}`, import.meta.url));

/** A workstation and one client that records every event it hears. */
function workstationWithClient(): { ws: ReturnType<typeof createWorkstationService>; client: ReturnType<ReturnType<typeof createWorkstationService>['connect']>; events: WorkstationEvent[] } {
  const ws = createWorkstationService({ exportsDir: join(dir, 'exports') });
  const client = ws.connect();
  const events: WorkstationEvent[] = [];
  client.onEvent((e) => events.push(e));
  return { ws, client, events };
}

function streamOf(events: WorkstationEvent[], id: string): Uint8Array {
  const chunks = events.flatMap((e) => (e.type === 'stream' && e.sessionId === id ? [e] : []));
  let at = 0;
  for (const c of chunks) {
    assert.equal(c.offset, at, 'chunks in order, without gaps');
    at += c.chunk.length;
  }
  return Buffer.concat(chunks.map((c) => c.chunk));
}

test('a .clrscope file opens as a stopped session whose stream decodes to the same recording, with its counters', async (t) => {
  const { ws, client, events } = workstationWithClient();
  t.after(() => ws.shutdown());
  const path = join(dir, 'orders.clrscope');
  await writeRecordingFile(path, rec, counters);

  const info = await client.openRecording({ path });
  const expected: Partial<SessionInfo> = {
    pid: null, label: 'orders.clrscope', state: 'stopped', source: 'file', attached: false, approximateCpu: false, exitCode: null,
    intervalMs: 10, message: `Opened from ${path}.`,
  };
  for (const [key, value] of Object.entries(expected)) assert.deepEqual(info[key as keyof SessionInfo], value, key);
  assert.equal(info.startedAtMs, 1_700_000_000_123, 'the recording\'s own start');
  assert.deepEqual((await client.listSessions()).map((s) => s.id), [info.id]);
  assert.ok(events.some((e) => e.type === 'session' && e.session.id === info.id), 'every page hears of the new session');

  const progress = events.flatMap((e) => (e.type === 'open-progress' ? [`${e.phase} ${e.done}/${e.total}`] : []));
  const size = statSync(path).size;
  assert.equal(progress[0], `reading ${size}/${size}`);
  // A .clrscope file is the stream already: read and passed on, with nothing to prepare.
  assert.deepEqual(progress, [`reading ${size}/${size}`]);

  await client.subscribe(info.id);
  const back = recordingFromStream([streamOf(events, info.id)]);
  assert.equal(dumpRecording(back), dumpRecording(rec));
  assert.deepEqual(await client.countersHistory(info.id), counters);
  // Stopping a file session is harmless: it is stopped already.
  assert.equal((await client.stop(info.id)).state, 'stopped');
});

test('a file session exports like any other, its counters kept in .clrscope', async (t) => {
  const { ws, client } = workstationWithClient();
  t.after(() => ws.shutdown());
  const path = join(dir, 'again.clrscope');
  await writeRecordingFile(path, rec, counters);
  const info = await client.openRecording({ path });
  // The session keeps no sample once its stream is written: the export reads them back from it.
  const model = ws.sessionObject(info.id).recording;
  assert.equal(model?.keepsSamples, false);
  assert.equal(model?.sampleCount, rec.sampleCount);
  const out = join(dir, 'again-exported.clrscope');
  const result = await client.exportRecording({ sessionId: info.id, format: 'clrscope', path: out });
  assert.equal(result.bytes, statSync(out).size);
  const reread = await readRecordingFile(out);
  assert.equal(dumpRecording(reread.recording), dumpRecording(rec));
  assert.deepEqual(reread.counters, counters);
  const named = await client.exportRecording({ sessionId: info.id, format: 'speedscope' });
  assert.match(named.path, /\/again-s\d+-\d{8}T\d{6}Z\.speedscope\.json$/);
  assert.equal(toCollapsed((await readRecordingFile(named.path)).recording, { metric: 'cpu', groupByThread: true }), toCollapsed(rec, { metric: 'cpu', groupByThread: true }));
});

test('exports report their progress once per step and refuse a path named for another format', async (t) => {
  const { ws, client, events } = workstationWithClient();
  t.after(() => ws.shutdown());
  const path = join(dir, 'progress.clrscope');
  await writeRecordingFile(path, rec, counters);
  const info = await client.openRecording({ path });
  const steps = (): string[] => events.flatMap((e) => (e.type === 'export-progress' && e.sessionId === info.id ? [`${e.done}/${e.total}`] : []));
  await client.exportRecording({ sessionId: info.id, format: 'pprof', path: join(dir, 'p.pb.gz') });
  assert.deepEqual(steps(), ['0/1', '1/1']);
  events.length = 0;
  await client.exportRecording({ sessionId: info.id, format: 'nettrace', path: join(dir, 'p.nettrace') });
  assert.deepEqual([steps()[0], steps()[steps().length - 1]], ['0/1', '8/8']);
  await assert.rejects(client.exportRecording({ sessionId: info.id, format: 'nettrace', path: join(dir, 'p.speedscope.json') }),
    new UserError('The export path must end in .nettrace for the nettrace format, not "p.speedscope.json".'));
});

test('a dotnet-trace .nettrace opens with its CPU marked approximate', async (t) => {
  const { ws, client } = workstationWithClient();
  t.after(() => ws.shutdown());
  const path = join(dir, 'dotnet-trace-cpu-ratio.nettrace');
  writeFileSync(path, gunzipSync(fixture('nettrace/fixtures/dotnet-trace-cpu-ratio.nettrace.gz')));
  const info = await client.openRecording({ path });
  assert.equal(info.approximateCpu, true);
  assert.equal(info.label, 'dotnet-trace-cpu-ratio.nettrace');
  assert.equal(info.pid, null);
  assert.equal(info.intervalMs, 1);
  assert.deepEqual(await client.countersHistory(info.id), [], 'a nettrace carries no counters');
});

test('a file that cannot be read is one sentence, and no session is made', async (t) => {
  const { ws, client } = workstationWithClient();
  t.after(() => ws.shutdown());
  const whole = join(dir, 'whole.clrscope');
  await writeRecordingFile(whole, rec, counters);
  const bytes = readFileSync(whole);
  const cut = join(dir, 'cut.clrscope');
  writeFileSync(cut, bytes.subarray(0, bytes.length - 5));
  await assert.rejects(client.openRecording({ path: cut }), (err: unknown) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, /^Cannot read .*cut\.clrscope: the clrscope file is truncated: it ends at byte \d+, inside the record that starts at byte \d+\.$/);
    return true;
  });
  await assert.rejects(client.openRecording({ path: join(dir, 'absent.nettrace') }), /^UserError: Cannot read .*absent\.nettrace: no such file\.$/);
  await assert.rejects(client.openRecording({ path: 'relative.clrscope' }), /^UserError: The recording path must be absolute, not relative\.clrscope\.$/);
  assert.deepEqual(await client.listSessions(), []);
});

test('CPU is estimated for other tools\' files, measured for clrscope\'s own', async () => {
  const opened = async (name: string, write: (path: string) => Promise<unknown> | void): Promise<boolean> => {
    const path = join(dir, name);
    await write(path);
    const file = await readRecordingFile(path);
    return cpuIsEstimated(file.format, file.recording);
  };
  assert.equal(await opened('own.clrscope', (p) => writeRecordingFile(p, rec, [])), false);
  assert.equal(await opened('own.pb.gz', (p) => writeRecordingFile(p, rec, [])), false);
  assert.equal(await opened('own.speedscope.json', (p) => writeRecordingFile(p, rec, [])), false);
  // Even clrscope's own nettrace: the format has no place for a sample's measured CPU time.
  assert.equal(await opened('own.nettrace', (p) => writeRecordingFile(p, rec, [])), true);
  assert.equal(await opened('other.speedscope.json', (p) => writeFileSync(p, fixture('speedscope/fixtures/evented-dotnet-trace-like.speedscope.json'))), true);
  assert.equal(await opened('other.pb', (p) => writeFileSync(p, otherToolsPprof())), true);
  // A recording imported from another tool and saved as .clrscope stays approximate.
  const imported = await readRecordingFile(join(dir, 'other.pb'));
  assert.equal(await opened('imported.clrscope', (p) => writeRecordingFile(p, imported.recording, [])), true);
});

/** A CPU profile as another profiler writes one: no clrscope comment. */
function otherToolsPprof(): Uint8Array {
  const strings = new StringTable();
  const profile = new Profile({
    sampleType: [new ValueType({ type: strings.dedup('cpu'), unit: strings.dedup('nanoseconds') })],
    function: [new PprofFunction({ id: 1, name: strings.dedup('main.work') })],
    location: [new Location({ id: 1, line: [new Line({ functionId: 1 })] })],
    sample: [new Sample({ locationId: [1], value: [10_000_000] })],
    stringTable: strings,
  });
  return profile.encode();
}
