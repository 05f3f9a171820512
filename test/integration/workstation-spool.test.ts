// A real .NET target recorded through the workstation service: its stream is kept once, on disk
// (the session's spool file), never as a second copy in the main process's memory; what a page
// hears live, what a late page replays and what the file holds are the same bytes, and the file
// opens with the recording file reader (not the collector's path) to the same samples. Closing
// the session deletes the file. The session's model in the main process keeps no sample: an
// export reads every sample back from the spool file, and equals one made from the file itself.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SessionInfo, WorkstationEvent } from '../../structs/api/contract.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { createWorkstationService, type WorkstationClient } from '../../electron/services/workstation/workstation-service.js';
import { PROFILER, ROOT } from './support/paths.js';
import { goAvailable, goPprof } from './support/go-pprof.js';
import { readRecordingFile, writeRecordingFile } from '../../electron/services/export/recording-file.js';
import { Recording } from '../../structs/profile/recording.js';
import { SampleColumns } from '../../structs/profile/sample-columns.js';

const SCENARIOS = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const missing = [
  ...(existsSync(PROFILER) ? [] : ['the profiler library (npm run build:native)']),
  ...(existsSync(SCENARIOS) ? [] : ['Scenarios.dll (npm run build:targets)']),
  ...(spawnSync('dotnet', ['--version']).status === 0 ? [] : ['dotnet on PATH']),
];
const skip = missing.length > 0 && !process.env.CI;

function streamOf(events: readonly WorkstationEvent[], id: string): Buffer {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const e of events) {
    if (e.type !== 'stream' || e.sessionId !== id) continue;
    assert.equal(e.offset, at, 'every byte once, in order');
    chunks.push(e.chunk);
    at += e.chunk.length;
  }
  return Buffer.concat(chunks);
}

/** Every object reachable from `root` through properties, array items and Map/Set entries. */
function reachable(root: object): Set<object> {
  const seen = new Set<object>();
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const v = todo.pop();
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v as object)) continue;
    seen.add(v as object);
    if (ArrayBuffer.isView(v)) continue;
    if (v instanceof Map) for (const [k, x] of v) todo.push(k, x);
    else if (v instanceof Set) for (const x of v) todo.push(x);
    for (const key of Object.getOwnPropertyNames(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key);
      if (d !== undefined && 'value' in d) todo.push(d.value);
    }
  }
  return seen;
}

/** `go tool pprof -raw` without its header (the file's name, the time it was made): its sample rows, with their sums. */
function rawSamples(file: string): string {
  const raw = goPprof(['-raw'], file);
  return raw.slice(raw.indexOf('Samples:'));
}

function listen(client: WorkstationClient): WorkstationEvent[] {
  const events: WorkstationEvent[] = [];
  client.onEvent((e) => events.push(e));
  return events;
}

describe('a workstation session keeps its stream on disk, once', { skip: skip ? `missing: ${missing.join('; ')}` : false, timeout: 120000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-spool-it-'));
  const spool = join(dir, 'spool');
  mkdirSync(spool);
  chmodSync(spool, 0o700);
  const workstation = createWorkstationService({ libraryPath: PROFILER, spoolDir: spool, countersIntervalMs: 200 });
  after(async () => {
    await workstation.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records a .NET program with no stream bytes in memory; page, late page and file agree; close deletes the file', async () => {
    const page = workstation.connect();
    const heard = listen(page);
    const info = await workstation.launch({ command: 'dotnet', args: [SCENARIOS, 'cpu-ratio', '--seconds', '3'], intervalMs: 1 });
    await page.subscribe(info.id);
    let checks = 0;
    let stopped: SessionInfo | undefined;
    while (stopped === undefined) {
      // Read in one turn: the spool is written in the turn a chunk arrives, so the two agree.
      const storage = workstation.streamStorage(info.id);
      assert.equal(storage.bytesInMemory, 0, 'no copy of the stream in memory');
      if (storage.length > 0) {
        assert.ok(storage.path !== undefined && storage.path.startsWith(`${spool}/`));
        assert.equal(readFileSync(storage.path).length, storage.length + 5, 'the file is the stream plus its SPOOLED record');
        checks++;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      stopped = (await workstation.listSessions()).find((s) => s.id === info.id && s.state === 'stopped');
    }
    assert.ok(checks >= 5, `${checks} checks while recording`);
    assert.equal(stopped.exitCode, 0);

    const live = streamOf(heard, info.id);
    const storage = workstation.streamStorage(info.id);
    assert.equal(live.length, storage.length);
    assert.equal(storage.bytesInMemory, 0);
    const late = workstation.connect();
    const lateHeard = listen(late);
    await late.subscribe(info.id);
    assert.ok(streamOf(lateHeard, info.id).equals(live), 'a late page replays the bytes the first one heard live');

    const file = readFileSync(storage.path!);
    assert.ok(Buffer.concat([file.subarray(0, 16), file.subarray(21)]).equals(live), 'the file holds the same bytes');
    const fromFile = openRecording(file).recording;
    const fromLive = recordingFromStream([live]);
    assert.ok(fromFile.sampleCount > 500, `${fromFile.sampleCount} samples`);
    assert.equal(fromFile.sampleCount, fromLive.sampleCount);
    assert.ok(fromFile.functions().some((fn) => frameLabel(fn) === 'Clrscope.Targets.Scenarios.CpuWork.Heavy'));

    await workstation.closeSession(info.id);
    assert.equal(existsSync(storage.path!), false);
    assert.deepEqual(readdirSync(spool), []);
    assert.equal(workstation.hasSession(info.id), false);
    assert.ok(heard.some((e) => e.type === 'session-closed' && e.sessionId === info.id));
    page.close();
    late.close();
  });

  it('keeps no sample in the main process; an export reads them back from the spool file and equals one made from the file', { skip: goAvailable() ? false : 'go is not installed' }, async () => {
    const info = await workstation.launch({ command: 'dotnet', args: [SCENARIOS, 'cpu-ratio', '--seconds', '2'], intervalMs: 1 });
    let stopped: SessionInfo | undefined;
    while (stopped === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stopped = (await workstation.listSessions()).find((s) => s.id === info.id && s.state === 'stopped');
    }
    const session = workstation.sessionObject(info.id);
    const model = session.recording;
    assert.ok(model !== undefined);
    assert.ok(model.sampleCount > 500, `${model.sampleCount} samples counted`);
    // What the session object holds: its recordings keep no samples, and no sample column has room for one.
    const held = reachable(session);
    const recordings = [...held].filter((o) => o instanceof Recording) as Recording[];
    const columns = [...held].filter((o) => o instanceof SampleColumns) as SampleColumns[];
    assert.ok(recordings.includes(model));
    assert.deepEqual(recordings.map((r) => r.keepsSamples), recordings.map(() => false));
    assert.ok(columns.length >= 1);
    assert.deepEqual(columns.map((c) => c.capacity), columns.map(() => 0));
    assert.throws(() => model.sampleColumns(), /keeps no samples/);

    const exported = join(dir, 'session.pb.gz');
    const progress: string[] = [];
    const listener = workstation.connect();
    listener.onEvent((e) => { if (e.type === 'export-progress' && e.sessionId === info.id) progress.push(`${e.done}/${e.total}`); });
    await workstation.exportRecording({ sessionId: info.id, format: 'pprof', path: exported });
    assert.deepEqual(progress.slice(0, 1), ['0/1'], 'progress starts at 0 of 1, as every export\'s');
    assert.ok(progress.length >= 2);
    // The spool file on its own, through the file reader and the same writer.
    const copy = join(dir, 'spool-copy.clrscope');
    copyFileSync(workstation.streamStorage(info.id).path!, copy);
    const fromFile = (await readRecordingFile(copy)).recording;
    assert.equal(fromFile.sampleCount, model.sampleCount);
    const fileExport = join(dir, 'file.pb.gz');
    await writeRecordingFile(fileExport, fromFile, []);
    const a = rawSamples(exported);
    const b = rawSamples(fileExport);
    assert.ok(a.split('\n').length > 20, a.slice(0, 500));
    assert.equal(a, b, 'the same samples with the same sums');
    await workstation.closeSession(info.id);
    listener.close();
  });
});
