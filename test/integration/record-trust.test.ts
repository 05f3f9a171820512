// What happens to a recording when a run does not go as planned, against real .NET targets:
// a stop made by clrscope (--duration, Ctrl-C) is a clean end, not a cut, in the saved file, in
// `convert` and in a reopened workstation session; clrscope killed with SIGKILL leaves its
// spool, which converts to a recording with the hot method on top; a save that fails (a file
// size limit, a full file system) says so in one sentence with the program's exit code and
// where the recording is kept, exits non-zero and leaves no file; a program that is not .NET
// exits non-zero.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { EndReason } from '../../structs/wire/records.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { PROFILER, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const HEAVY = 'Clrscope.Targets.Scenarios.CpuWork.Heavy';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-trust-test-'));
const mounts: string[] = [];
after(() => {
  for (const m of mounts) spawnSync('umount', [m]);
  rmSync(dir, { recursive: true, force: true });
});

/** A private cache folder per test, so spool files of one test never show up in another. */
function cacheEnv(name: string): NodeJS.ProcessEnv {
  return { XDG_CACHE_HOME: join(dir, `cache-${name}`) };
}
const spoolFiles = (env: NodeJS.ProcessEnv): string[] => {
  const spool = join(env.XDG_CACHE_HOME ?? '', 'clrscope', 'spool');
  return existsSync(spool) ? readdirSync(spool).map((n) => join(spool, n)) : [];
};
const clrscopeLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('clrscope:'));

function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(stderr, /internal error/);
}

/** Waits until the target printed READY (it shares the CLI's stdout). */
function untilReady(child: import('node:child_process').ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    let text = '';
    child.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('READY ')) resolve();
    });
  });
}

describe('a stop made by clrscope is a clean end, not a cut', () => {
  it('--duration: the .clrscope, convert, pprof and a reopened workstation session say nothing of a cut', async () => {
    const env = cacheEnv('duration');
    const file = join(dir, 'duration.clrscope');
    const r = await runCli(['record', '--duration', '1.5', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '6'], { env });
    assert.equal(r.code, 130, r.stderr);
    assertNoStack(r.stderr);
    assert.doesNotMatch(r.stderr, /END record|cut/);
    const opened = await readRecordingFile(file);
    assert.equal(opened.recording.cut, false);
    assert.equal(opened.recording.end?.reason, EndReason.Stopped);
    assert.ok(opened.recording.sampleCount > 50);
    const pb = join(dir, 'duration.pb.gz');
    const conv = await runCli(['convert', file, '-o', pb]);
    assert.equal(conv.code, 0, conv.stderr);
    assert.doesNotMatch(conv.stderr, /cut/);
    if (goAvailable()) assert.doesNotMatch(goPprof(['-raw'], pb), /cut before its END/);
    const workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports') });
    try {
      const session = await workstation.openRecording({ path: file });
      assert.equal(session.message, `Opened from ${file}.`);
    } finally {
      await workstation.shutdown();
    }
    // The spool became the .clrscope itself: nothing is left behind.
    assert.deepEqual(spoolFiles(env), []);
  });

  it('Ctrl-C: the pprof and the summary say nothing of a cut, and the spool is removed', async () => {
    const env = cacheEnv('sigint');
    const file = join(dir, 'sigint.pb.gz');
    let ready: Promise<void> | undefined;
    const r = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '8'], {
      env,
      started: (child) => {
        ready = untilReady(child).then(async () => {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          child.kill('SIGINT');
        });
      },
    });
    await ready;
    assertNoStack(r.stderr);
    assert.match(r.stderr, /clrscope: stopping; writing what was recorded/);
    assert.match(r.stderr, /clrscope: wrote /);
    assert.doesNotMatch(r.stderr, /cut|END record/);
    const opened = await readRecordingFile(file);
    assert.equal(opened.recording.cut, false);
    assert.deepEqual(spoolFiles(env), []);
  });
});

describe('clrscope killed with SIGKILL leaves the recording behind', () => {
  it('the spool converts to a cut recording with the hot method on top, and the next run says where it is', async () => {
    const env = cacheEnv('sigkill');
    let ready: Promise<void> | undefined;
    const r = await runCli(['record', '-o', join(dir, 'never.pb.gz'), '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '6'], {
      env,
      started: (child) => {
        ready = untilReady(child).then(async () => {
          await new Promise((resolve) => setTimeout(resolve, 2500));
          child.kill('SIGKILL');
        });
      },
    });
    await ready;
    assert.equal(r.signal, 'SIGKILL');
    assert.equal(existsSync(join(dir, 'never.pb.gz')), false);
    const files = spoolFiles(env);
    assert.equal(files.length, 1, 'one spool file');
    assert.equal(statSync(files[0]).mode & 0o777, 0o600);
    assert.equal(statSync(join(env.XDG_CACHE_HOME ?? '', 'clrscope', 'spool')).mode & 0o777, 0o700);
    const opened = await readRecordingFile(files[0]);
    assert.equal(opened.recording.cut, true);
    assert.ok(opened.recording.sampleCount > 100, `${opened.recording.sampleCount} samples`);
    const pb = join(dir, 'killed.pb.gz');
    const conv = await runCli(['convert', files[0], '-o', pb]);
    assert.equal(conv.code, 0, conv.stderr);
    assert.match(conv.stderr, /the recording was cut before its end/);
    if (goAvailable()) {
      const top = parseTop(goPprof(['-top', '-sample_index=cpu'], pb)).filter((row) => row.name.startsWith('Clrscope.'));
      assert.equal(top[0]?.name, HEAVY);
    }
    // The killed run's target was orphaned; give it time to finish so its pid is gone too.
    const next = await runCli(['record', '-o', join(dir, 'next.pb.gz'), '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.2'], { env });
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, new RegExp(`clrscope: 1 recording of earlier runs that did not finish is kept in .*spool \\(the newest: ${files[0].split('/').pop()?.replace(/\./g, '\\.')}\\)`));
  });
});

describe('a save that fails says so, exits non-zero and leaves no file', () => {
  it('a file size limit (ulimit -f on clrscope alone): one sentence with the program exit code and the kept spool', async (t) => {
    if (spawnSync('prlimit', ['--version']).status !== 0) {
      t.skip('prlimit (util-linux) is not installed');
      return;
    }
    const env = cacheEnv('fsize');
    const file = join(dir, 'limited.nettrace');
    let limited: Promise<void> | undefined;
    // The limit goes on clrscope once the program runs: the .NET runtime itself does not start under a small RLIMIT_FSIZE.
    const r = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '2', '--exit-code', '3'], {
      env,
      started: (child) => {
        limited = untilReady(child).then(() => {
          const p = spawnSync('prlimit', [`--fsize=${8 * 1024}`, '--pid', String(child.pid)], { encoding: 'utf8' });
          assert.equal(p.status, 0, p.stderr);
        });
      },
    });
    await limited;
    assert.equal(r.code, 3, r.stderr);
    assertNoStack(r.stderr);
    const failure = clrscopeLines(r.stderr).find((l) => l.startsWith(`clrscope: Cannot write ${file}`));
    assert.ok(failure !== undefined, r.stderr);
    // The spool hit the same limit: what it holds (the first part) is kept and opens as a cut recording.
    const m = /: the file would be larger than this process may write \(ulimit -f\) or the file system allows; the program exited with code 3, and what was recorded before (\S+) could not be written further is kept there\.$/.exec(failure);
    assert.ok(m !== null, failure);
    const kept = await readRecordingFile(m[1]);
    assert.equal(kept.recording.cut, true);
    assert.ok(kept.recording.sampleCount > 0);
    assert.equal(existsSync(file), false);
    assert.deepEqual(readdirSync(dir).filter((n) => n.includes('limited')), []);
  });

  it('a full file system: one sentence, exit 74 when the program exited 0, the whole recording kept in the spool', async (t) => {
    const full = join(dir, 'full');
    mkdirSync(full);
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full], { encoding: 'utf8' });
    if (m.status !== 0) {
      t.skip(`cannot mount a small tmpfs here (${m.stderr.trim()})`);
      return;
    }
    mounts.push(full);
    // All but 8 KiB taken: a recording (a few bytes a sample since wire v2) cannot fit.
    writeFileSync(join(full, 'filler'), Buffer.alloc(56 * 1024));
    const env = cacheEnv('full');
    const file = join(full, 'out.clrscope');
    const r = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '1.5'], { env });
    assert.equal(r.code, 74, r.stderr);
    assertNoStack(r.stderr);
    const failure = clrscopeLines(r.stderr).find((l) => l.startsWith(`clrscope: Cannot write ${file}`)) ?? '';
    const m2 = /: the disk is full; the program exited with code 0, and everything recorded is kept in (\S+) \(clrscope convert \S+ -o FILE writes it in any format\)\.$/.exec(failure);
    assert.ok(m2 !== null, r.stderr);
    assert.deepEqual(readdirSync(full), ['filler']);
    const kept = await readRecordingFile(m2[1]);
    assert.equal(kept.recording.cut, false);
    assert.ok(kept.recording.sampleCount > 50);
  });
});

describe('a command that is not .NET', () => {
  it('exits non-zero with one sentence even when the program itself exits 0', async () => {
    const r = await runCli(['record', '-o', join(dir, 'true.pb.gz'), '--', 'true'], { env: { ...cacheEnv('true'), CLRSCOPE_CONNECT_TIMEOUT_MS: '500' } });
    assert.equal(r.code, 1, r.stderr);
    assertNoStack(r.stderr);
    assert.match(r.stderr, /clrscope: no \.NET runtime connected, so nothing was recorded and .*true\.pb\.gz was not written: true is not a \.NET program, .*; the program exited with code 0\./);
    assert.equal(existsSync(join(dir, 'true.pb.gz')), false);
    assert.deepEqual(spoolFiles(cacheEnv('true')), []);
  });
});
