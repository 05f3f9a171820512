// The workstation's attach when the runtime refuses clrscope's profiler, against a fake runtime
// on the diagnostics socket of a real (sleeping) process: which refusals fall back to EventPipe,
// what the user reads when that fails too, what an export says while the session records, and
// a shutdown that does not wait for a rundown. The real runtime is in
// test/integration/workstation-fallback.test.ts.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HRESULT } from '../../../structs/diagnostics/hresults.js';
import { CommandSet, EventPipeCommand, ProcessCommand, ProfilerCommand } from '../../../structs/diagnostics/protocol.js';
import { startFakeRuntime, type FakeAnswer, type FakeRuntime } from '../diagnostics/fake-runtime.test-support.js';
import { readStat } from '../diagnostics/proc.js';
import { socketName } from '../diagnostics/socket-location.js';
import { processAlive } from '../recording/profiled-attach.js';
import { createWorkstationService, type WorkstationService } from './workstation-service.js';

const MAGIC = [0x44, 0x4f, 0x54, 0x4e, 0x45, 0x54, 0x5f, 0x49, 0x50, 0x43, 0x5f, 0x56, 0x31, 0x00];
const work = mkdtempSync(join(tmpdir(), 'clrscope-ws-attach-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

const errorReply = (hresult: number): Uint8Array => Uint8Array.from([...MAGIC, 24, 0, 0xff, 0xff, 0, 0, hresult & 0xff, (hresult >>> 8) & 0xff, (hresult >>> 16) & 0xff, hresult >>> 24]);
const sessionReply = Uint8Array.from([...MAGIC, 28, 0, 0xff, 0x00, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
const is = (request: Uint8Array, set: number, command: number): boolean => request[16] === set && request[17] === command;
const isAttach = (r: Uint8Array): boolean => is(r, CommandSet.Profiler, ProfilerCommand.AttachProfiler);
const isCollect = (r: Uint8Array): boolean => is(r, CommandSet.EventPipe, EventPipeCommand.CollectTracing2);
// Before an attach clrscope turns the runtime's perf map off and on (electron/services/profiler/perf-map.ts).
const notPerfMap = (r: Uint8Array): boolean => !is(r, CommandSet.Process, ProcessCommand.EnablePerfMap) && !is(r, CommandSet.Process, ProcessCommand.DisablePerfMap);
const isStop = (r: Uint8Array): boolean => is(r, CommandSet.EventPipe, EventPipeCommand.StopTracing);

interface Target {
  pid: number;
  runtime: FakeRuntime;
  workstation: WorkstationService;
}

/** A sleeping process whose diagnostics socket (in its own TMPDIR) is a fake runtime answering as told. */
async function withTarget(answer: (request: Uint8Array) => FakeAnswer, body: (t: Target) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(work, 'tmp-'));
  const child: ChildProcess = spawn('sleep', ['60'], { env: { ...process.env, TMPDIR: dir } });
  const pid = child.pid ?? 0;
  const stat = await readStat(pid);
  assert.ok(stat !== undefined);
  const runtime = await startFakeRuntime(join(dir, socketName(pid, stat.startTime)), answer);
  // The fake runtime loads nothing: any existing file passes for the library.
  const workstation = createWorkstationService({ libraryPath: process.execPath, connectTimeoutMs: 60000 });
  try {
    await body({ pid, runtime, workstation });
  } finally {
    await workstation.shutdown();
    await runtime.close();
    child.kill();
  }
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return assert.fail('expected a rejection');
}

test('a refusal other than "another profiler is active" stays the error it is: no EventPipe session is tried', async () => {
  await withTarget(() => errorReply(HRESULT.ERROR_MOD_NOT_FOUND), async ({ pid, runtime, workstation }) => {
    assert.match(await rejection(workstation.attach({ pid })), new RegExp(`^Process ${pid} did not load the profiler: the runtime could not load the profiler library .*\\(ERROR_MOD_NOT_FOUND, 0x8007007E\\)\\.$`));
    assert.deepEqual(runtime.requests.filter(notPerfMap).map((r) => isAttach(r)), [true], 'AttachProfiler only');
    assert.deepEqual(await workstation.listSessions(), []);
  });
});

test('the fallback refused as well: one sentence with why it was tried and why it failed', async () => {
  await withTarget((r) => errorReply(isAttach(r) ? HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE : HRESULT.E_FAIL), async ({ pid, runtime, workstation }) => {
    assert.equal(await rejection(workstation.attach({ pid })),
      `Process ${pid} already has another profiler loaded, so clrscope cannot load its own, and recording through the runtime's EventPipe instead failed too: `
      + `process ${pid} did not start an EventPipe session: the runtime reported an unspecified failure (E_FAIL, 0x80004005).`);
    assert.deepEqual(runtime.requests.filter(notPerfMap).map((r) => [isAttach(r), isCollect(r)]), [[true, false], [false, true]]);
    assert.deepEqual(await workstation.listSessions(), []);
  });
});

test('a recording fallback session: an export says to stop first, and a shutdown drops the session at once', async () => {
  const answer = (r: Uint8Array): FakeAnswer => {
    if (isAttach(r)) return errorReply(HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE);
    // The session's stream stays open until clrscope drops it; a StopTracing would go unanswered.
    if (isCollect(r)) return { chunks: [sessionReply], keepOpen: true };
    return 'hang';
  };
  await withTarget(answer, async ({ pid, runtime, workstation }) => {
    const session = await workstation.attach({ pid });
    assert.equal(session.state, 'recording');
    assert.equal(session.approximateCpu, true);
    assert.equal(await rejection(workstation.exportRecording({ sessionId: session.id, format: 'pprof' })),
      `Session ${session.id} has nothing to export yet: stop the recording first, since the runtime names the methods only when its EventPipe session ends.`);
    const t0 = Date.now();
    await workstation.shutdown();
    assert.ok(Date.now() - t0 < 2000, `shutdown took ${Date.now() - t0} ms`);
    assert.ok(!runtime.requests.some(isStop), 'no StopTracing: the runtime ends a dropped session itself');
    assert.ok(processAlive(pid));
  });
});
