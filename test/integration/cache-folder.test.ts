// A cache folder clrscope cannot use (issue 23: a read-only one was reported as "does not
// exist") is named with what is really wrong: a read-only file system (a read-only tmpfs, a
// read-only bind mount of a folder clrscope already uses), a file where a folder should be.
// `record` still records (in memory, saying a kill would lose it) and exits with the program's
// code; the workstation's exports folder says the same in its one sentence. Permission denied
// (root ignores modes) is in electron/services/files/make-folders.test.ts, run as nobody.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { PROFILER, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-cache-folder-test-'));
const mounts: string[] = [];
after(() => {
  for (const m of mounts.reverse()) spawnSync('umount', [m]);
  rmSync(dir, { recursive: true, force: true });
});

/** Mounts with `args` at a new folder `name`; the reason when this machine cannot. */
function mountAt(name: string, args: string[], prepare: (folder: string) => void = () => undefined): { path: string } | { why: string } {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  prepare(folder);
  const m = spawnSync('mount', [...args, folder], { encoding: 'utf8' });
  if (m.status !== 0) return { why: `cannot mount here (mount ${args.join(' ')}: ${m.stderr.trim()})` };
  mounts.push(folder);
  return { path: folder };
}

/** Records a short run with XDG_CACHE_HOME at `cache`; returns the clrscope line about the spool. */
async function recordWithCache(cache: string, name: string): Promise<string> {
  const out = join(dir, `${name}.pb.gz`);
  const r = await runCli(['record', '-o', out, '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.3', '--exit-code', '0'], { env: { XDG_CACHE_HOME: cache } });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at |does not exist/);
  assert.ok(existsSync(out), 'the recording is written all the same');
  const line = r.stderr.split('\n').find((l) => l.startsWith('clrscope: the recording is kept in memory only'));
  assert.ok(line !== undefined, r.stderr);
  return line;
}

const memoryOnly = (spool: string, why: string): string =>
  `clrscope: the recording is kept in memory only (cannot use ${spool}: ${why}), so it would be lost if clrscope were killed.`;

describe('a cache folder clrscope cannot use is named with what is wrong', () => {
  it('a read-only file system (tmpfs mounted ro): record says so and records in memory', async (t) => {
    const ro = mountAt('ro-tmpfs', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs']);
    if (!('path' in ro)) {
      t.skip(ro.why);
      return;
    }
    assert.equal(await recordWithCache(ro.path, 'ro-tmpfs'), memoryOnly(join(ro.path, 'clrscope', 'spool'), `${ro.path} is on a read-only file system`));
  });

  it('a read-only bind mount of a cache that already holds clrscope\'s folder', async (t) => {
    const source = join(dir, 'bind-source');
    mkdirSync(join(source, 'clrscope'), { recursive: true, mode: 0o700 });
    const bound = mountAt('bound', ['--bind', source]);
    if (!('path' in bound)) {
      t.skip(bound.why);
      return;
    }
    const remount = spawnSync('mount', ['-o', 'remount,ro,bind', bound.path], { encoding: 'utf8' });
    if (remount.status !== 0) {
      t.skip(`cannot make a bind mount read-only here (${remount.stderr.trim()})`);
      return;
    }
    const clrscope = join(bound.path, 'clrscope');
    assert.equal(await recordWithCache(bound.path, 'ro-bind'), memoryOnly(join(clrscope, 'spool'), `${clrscope} is on a read-only file system`));
  });

  it('a file where the cache folder should be', async () => {
    const file = join(dir, 'cache-file');
    writeFileSync(file, '');
    assert.equal(await recordWithCache(file, 'file'), memoryOnly(join(file, 'clrscope', 'spool'), `${file} is not a folder`));
  });

  it('the workstation\'s exports folder on a read-only file system: one sentence naming it', async (t) => {
    const ro = mountAt('ro-exports', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs']);
    if (!('path' in ro)) {
      t.skip(ro.why);
      return;
    }
    const exportsDir = join(ro.path, 'exports');
    const source = join(dir, 'small.clrscope');
    const r = await runCli(['record', '-o', source, '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.3'], { env: { XDG_CACHE_HOME: join(dir, 'cache-ok') } });
    assert.equal(r.code, 0, r.stderr);
    const workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir, spoolDir: null });
    try {
      const session = await workstation.openRecording({ path: source });
      await assert.rejects(workstation.exportRecording({ sessionId: session.id, format: 'pprof' }), {
        message: `Cannot create the exports folder ${exportsDir}: ${ro.path} is on a read-only file system.`,
      });
    } finally {
      await workstation.shutdown();
    }
  });
});
