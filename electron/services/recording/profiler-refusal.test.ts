import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { HRESULT } from '../../../structs/diagnostics/hresults.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { clrscopeMarkerPath } from '../discovery/discovery.js';
import { PROFILER_CLSID } from '../profiler/profiler-env.js';
import { attachOrFallback, fallbackFailedSentence, fallbackSentence, refusalReason } from './profiler-refusal.js';
import { UserError } from '../errors/user-error.js';

const refused = (pid: number, hresult: number): DiagnosticsError => new DiagnosticsError('refused', 'runtime-error', pid, hresult);
// Above any pid_max: no process, no marker, no environment to read.
const NO_SUCH_PID = 999999999;

/** A process whose /proc entries are real, started with `env` on top of ours. */
async function withProcess(env: NodeJS.ProcessEnv, body: (pid: number) => Promise<void>): Promise<void> {
  const child: ChildProcess = spawn('sleep', ['30'], { env: { ...process.env, ...env } });
  try {
    await body(child.pid ?? 0);
  } finally {
    child.kill();
  }
}

test('another profiler already loaded: the sentence of the issue, for recording and for counters', async () => {
  assert.equal(await fallbackSentence(refused(NO_SUCH_PID, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), NO_SUCH_PID, 'recording'),
    `Process ${NO_SUCH_PID} already has another profiler loaded, so clrscope cannot load its own; recording with the runtime's EventPipe sample profiler instead (CPU time is approximate).`);
  // The runtime sends it as an int32: the signed value means the same.
  assert.equal(await fallbackSentence(refused(NO_SUCH_PID, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE | 0), NO_SUCH_PID, 'counters'),
    `Process ${NO_SUCH_PID} already has another profiler loaded, so clrscope cannot load its own; reading the runtime's System.Runtime EventCounters instead (the counters they do not cover stay empty).`);
});

test('the profiler already there is clrscope\'s own: started with it, or its marker published', async () => {
  const own = (pid: number): string => `Process ${pid} already has clrscope's profiler loaded, so clrscope cannot load it a second time; `
    + 'recording with the runtime\'s EventPipe sample profiler instead (CPU time is approximate).';
  await withProcess({ CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: PROFILER_CLSID.toLowerCase() }, async (pid) => {
    assert.equal(await fallbackSentence(refused(pid, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), pid, 'recording'), own(pid));
  });
  // Attached earlier by another clrscope: nothing in the environment, only the marker.
  await withProcess({}, async (pid) => {
    const marker = clrscopeMarkerPath(pid);
    writeFileSync(marker, '');
    try {
      assert.equal(await fallbackSentence(refused(pid, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), pid, 'recording'), own(pid));
    } finally {
      rmSync(marker, { force: true });
    }
  });
  // Started with some other profiler: not ours.
  await withProcess({ CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: '{846F5F1C-F9AE-4B07-969E-05C26BC060D8}' }, async (pid) => {
    assert.match(await fallbackSentence(refused(pid, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), pid, 'recording') ?? '', /already has another profiler loaded/);
  });
});

test('any other refusal is the error it is: clrscope\'s own library failing does not turn into an EventPipe recording', async () => {
  await withProcess({}, async (pid) => {
    for (const hresult of [HRESULT.CORPROF_E_PROFILER_NOT_ATTACHABLE, HRESULT.ERROR_MOD_NOT_FOUND, HRESULT.CORPROF_E_PROFILER_CANCEL_ACTIVATION, HRESULT.E_FAIL, HRESULT.E_UNEXPECTED]) {
      assert.equal(await fallbackSentence(refused(pid, hresult), pid, 'recording'), undefined, `0x${hresult.toString(16)}`);
      assert.equal(await refusalReason(refused(pid, hresult), pid), undefined);
    }
    assert.equal(await fallbackSentence(new DiagnosticsError('refused', 'runtime-error', pid), pid, 'counters'), undefined, 'no HRESULT at all');
  });
});

test('a process started with DOTNET_EnableDiagnostics_Profiler=0 is named with the setting, whatever the runtime answered', async () => {
  await withProcess({ DOTNET_EnableDiagnostics_Profiler: '0' }, async (pid) => {
    for (const hresult of [HRESULT.E_FAIL, HRESULT.CORPROF_E_PROFILER_NOT_ATTACHABLE]) {
      assert.equal(await fallbackSentence(refused(pid, hresult), pid, 'recording'),
        `Process ${pid} was started with DOTNET_EnableDiagnostics_Profiler=0, so its runtime would not load clrscope's profiler; recording with the runtime's EventPipe sample profiler instead (CPU time is approximate).`);
    }
  });
});

test('no socket, no answer, or not a diagnostics failure at all: nothing to fall back on', async () => {
  for (const failure of ['diagnostics-disabled', 'no-socket', 'not-dotnet', 'no-process', 'other-user', 'timeout', 'closed', 'protocol', 'exited'] as const) {
    assert.equal(await fallbackSentence(new DiagnosticsError('x', failure, 1, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), 1, 'recording'), undefined, failure);
  }
  assert.equal(await fallbackSentence(new UserError('loaded but never connected'), 1, 'recording'), undefined);
  assert.equal(await fallbackSentence(new Error('bug'), 1, 'counters'), undefined);
});

test('a fallback that cannot start either: one sentence that keeps why it was tried', async () => {
  const reason = await refusalReason(refused(NO_SUCH_PID, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), NO_SUCH_PID);
  assert.ok(reason !== undefined);
  const failed = new DiagnosticsError(`Process ${NO_SUCH_PID} did not start an EventPipe session: the runtime reported an unspecified failure (E_FAIL, 0x80004005).`, 'runtime-error', NO_SUCH_PID, HRESULT.E_FAIL);
  assert.equal(fallbackFailedSentence(reason, failed),
    `Process ${NO_SUCH_PID} already has another profiler loaded, so clrscope cannot load its own, and recording through the runtime's EventPipe instead failed too: `
    + `process ${NO_SUCH_PID} did not start an EventPipe session: the runtime reported an unspecified failure (E_FAIL, 0x80004005).`);
});

test('attachOrFallback: one decision for recording, counters and measuring', async () => {
  const refusal = refused(NO_SUCH_PID, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE);
  const fail = (err: unknown) => async (): Promise<string> => { throw err; };
  assert.deepEqual(await attachOrFallback(NO_SUCH_PID, 'recording', async () => 'attached'), { kind: 'profiler', attached: 'attached' });
  const undone: string[] = [];
  const decision = await attachOrFallback(NO_SUCH_PID, 'counters', fail(refusal), { undo: async () => { undone.push('undo'); } });
  assert.deepEqual(decision, {
    kind: 'eventpipe',
    reason: `Process ${NO_SUCH_PID} already has another profiler loaded, so clrscope cannot load its own`,
    notice: `Process ${NO_SUCH_PID} already has another profiler loaded, so clrscope cannot load its own; reading the runtime's System.Runtime EventCounters instead (the counters they do not cover stay empty).`,
  });
  assert.deepEqual(undone, ['undo'], 'what the failed attach left is undone before the fallback');
  // --no-fallback: the refusal as it is, still undone.
  await assert.rejects(attachOrFallback(NO_SUCH_PID, 'recording', fail(refusal), { fallback: false, undo: async () => { undone.push('undo'); } }), (err) => err === refusal);
  assert.equal(undone.length, 2);
  // Measuring has no EventPipe road: one sentence, whatever `fallback` says.
  await assert.rejects(attachOrFallback(NO_SUCH_PID, 'measuring', fail(refusal), { fallback: false }), (err) => err instanceof UserError
    && err.message === `Process ${NO_SUCH_PID} already has another profiler loaded, so clrscope cannot load its own; measuring needs clrscope's own profiler, so nothing was measured.`);
  // Anything that is not a refusal stays the error it is.
  const broken = new DiagnosticsError('x', 'no-socket', NO_SUCH_PID);
  await assert.rejects(attachOrFallback(NO_SUCH_PID, 'recording', fail(broken)), (err) => err === broken);
  await assert.rejects(attachOrFallback(NO_SUCH_PID, 'measuring', fail(broken)), (err) => err === broken);
});
