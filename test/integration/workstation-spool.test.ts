// A real .NET target recorded through the workstation service: its stream is kept once, on disk
// (the session's spool file), never as a second copy in the main process's memory; what a page
// hears live, what a late page replays and what the file holds are the same bytes, and the file
// opens with the recording file reader (not the collector's path) to the same samples. Closing
// the session deletes the file.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SessionInfo, WorkstationEvent } from '../../structs/api/contract.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { createWorkstation, type WorkstationClient } from '../../electron/services/workstation/workstation.js';
import { PROFILER, ROOT } from './support/paths.js';

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
  const workstation = createWorkstation({ libraryPath: PROFILER, spoolDir: spool, countersIntervalMs: 200 });
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
});
