import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { HRESULT } from '../../../structs/diagnostics/hresults.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { fallbackSentence } from './profiler-refusal.js';
import { UserError } from './user-error.js';

const refused = (pid: number, hresult: number): DiagnosticsError => new DiagnosticsError('refused', 'runtime-error', pid, hresult);

test('another profiler already loaded: the sentence of the issue, for recording and for counters', async () => {
  assert.equal(await fallbackSentence(refused(4242, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE), 4242, 'recording'),
    'Process 4242 already has another profiler loaded, so clrscope cannot load its own; recording with the runtime\'s EventPipe sample profiler instead (CPU time is approximate).');
  // The runtime sends it as an int32: the signed value means the same.
  assert.equal(await fallbackSentence(refused(4242, HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE | 0), 4242, 'counters'),
    'Process 4242 already has another profiler loaded, so clrscope cannot load its own; reading the runtime\'s System.Runtime EventCounters instead (the counters they do not cover stay empty).');
});

test('any other refusal the runtime sends back falls back too, naming it', async () => {
  const sentence = await fallbackSentence(refused(999999999, HRESULT.CORPROF_E_PROFILER_NOT_ATTACHABLE), 999999999, 'recording');
  assert.match(sentence ?? '', /^Process 999999999 did not load clrscope's profiler: the profiler library does not support attaching .*\(CORPROF_E_PROFILER_NOT_ATTACHABLE, 0x80131368\); recording with the runtime's EventPipe sample profiler instead \(CPU time is approximate\)\.$/);
});

test('a process started with DOTNET_EnableDiagnostics_Profiler=0 is named with the setting', async () => {
  const child = spawn('sleep', ['30'], { env: { ...process.env, DOTNET_EnableDiagnostics_Profiler: '0' } });
  try {
    const pid = child.pid ?? 0;
    assert.equal(await fallbackSentence(refused(pid, HRESULT.E_FAIL), pid, 'recording'),
      `Process ${pid} was started with DOTNET_EnableDiagnostics_Profiler=0, so its runtime would not load clrscope's profiler; recording with the runtime's EventPipe sample profiler instead (CPU time is approximate).`);
  } finally {
    child.kill();
  }
});

test('no socket, no answer, or not a diagnostics failure at all: nothing to fall back on', async () => {
  for (const failure of ['diagnostics-disabled', 'no-socket', 'not-dotnet', 'no-process', 'other-user', 'timeout', 'closed', 'protocol', 'exited'] as const) {
    assert.equal(await fallbackSentence(new DiagnosticsError('x', failure, 1), 1, 'recording'), undefined, failure);
  }
  assert.equal(await fallbackSentence(new UserError('loaded but never connected'), 1, 'recording'), undefined);
  assert.equal(await fallbackSentence(new Error('bug'), 1, 'counters'), undefined);
});
