// The soak harness's own parsing and comparison, on the texts the real programs and `clrscope
// record` print (copied from soak runs), so that a soak that finds "0 differences" found them by
// comparing something.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commonNormalize } from './soak-programs.js';
import { differences, logProblems, summarySamples, type RunResult } from './soak-run.js';
import { planned } from './soak-load.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('the recording summary\'s samples: one process, and a process tree summed', () => {
  assert.equal(summarySamples('clrscope: recorded pid 27556 (.NET 10.0.12): 42,056 samples (1,826 CPU, 40,244 wall), 0 dropped.\nTop methods'), 42056);
  const tree = [
    'clrscope: recorded 2 processes:',
    '  31039 (dotnet /x/pwsh.dll -NoPro…): 113,484 samples (the launched program)',
    '  31088 (pwsh -s -NoLogo -NoProfile -wd /tmp/r): 9,403 samples',
    'clrscope: the child processes\' recordings are kept in /root/.cache/clrscope/spool/x.clrscope',
  ].join('\n');
  assert.equal(summarySamples(tree), 122887);
  assert.equal(summarySamples('clrscope: internal error, please report it: RecordingError: Corrupt clrscope stream'), undefined);
});

test('timings, the run\'s folder and the tools\' folder are taken out; everything else stays', () => {
  const ctx = { dir: '/tmp/clrscope-soak-x/csharpier-r1-launch' };
  assert.equal(commonNormalize('Formatted 1754 files in 36656ms.\r\nTime Elapsed 00:00:17.19\nDuration: 6 s - /tmp/clrscope-soak-x/csharpier-r1-launch/a.dll\nPassed: 20\n', ctx),
    'Formatted 1754 files in <TIME>.\nTime Elapsed <TIME>\nDuration: <TIME> - <RUN>/a.dll\nPassed: 20');
});

function run(over: Partial<RunResult>): RunResult {
  return {
    program: 'p', mode: 'bare', round: 1, code: 0, signal: null, timedOut: false, output: 'a\nb', wallMs: 1, cpuMs: 1, problems: [], stderrTail: '', dir: '/tmp/x',
    files: { count: 2, digest: 'd1', files: new Map([['x.txt', 'h1'], ['y.txt', 'h2']]) },
    ...over,
  };
}

test('a profiled run differs from the bare run by its exit, its output line or its files', () => {
  const bare = run({});
  assert.deepEqual(differences(bare, run({ mode: 'launch' })), []);
  assert.deepEqual(differences(bare, run({ mode: 'launch', code: null, signal: 6 })), ['exit: signal 6, bare code 0']);
  assert.deepEqual(differences(bare, run({ mode: 'attach', output: 'a\nc' })), ['output differs at line 2: "c", bare "b"']);
  assert.deepEqual(differences(bare, run({ mode: 'attach', files: { count: 2, digest: 'd2', files: new Map([['x.txt', 'h1'], ['y.txt', 'h3']]) } })),
    ['files differ: 2 files, bare 2; 1 differ (y.txt)']);
});

test('the profiler\'s log: a failing callback is a problem, the end of a child\'s stream is not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-soak-harness-'));
  try {
    const log = join(dir, 'log');
    writeFileSync(log, [
      '[clrscope 1/1 1.0] profiling pid 1 every 1000 us (cpu 1, wall 1; exceptions 1, locks 1, allocations 1 by AllocationSampled), runtime 10.0.12',
      '[clrscope 1/2 2.0] the workstation stopped reading (connection closed); sampling stopped, the program carries on',
      '[clrscope 1/1 3.0] live heap: 2 handles made, 0 refused',
      '[clrscope 1/1 4.0] ExceptionThrown: std::runtime_error (3 so far)',
    ].join('\n'));
    assert.deepEqual(logProblems(log), ['profiler log: [clrscope 1/1 4.0] ExceptionThrown: std::runtime_error (3 so far)']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the load is the same list of requests every run, with every kind of failure in it', () => {
  const kinds = Array.from({ length: 600 }, (_, i) => planned(i));
  assert.deepEqual(kinds, Array.from({ length: 600 }, (_, i) => planned(i)));
  const failures = new Set(kinds.filter((p) => p.kind === 'fail').map((p) => p.path));
  assert.deepEqual([...failures].sort(), ['/fail/deep', '/fail/format', '/fail/invalid', '/fail/key', '/fail/null']);
});
