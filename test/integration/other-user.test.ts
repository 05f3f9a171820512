// Another local user against clrscope's files (issue 10, item 20), as root here: a second user
// is created (useradd) and does the attacker's part through runuser. A link planted where an
// output goes is replaced, never written through, and its target is never created; a
// clrscope-exports folder or a cache folder another user made is not used; a counters block
// another user put in /dev/shm is not read. Skipped, saying why, where no user can be made.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { fixtureStream } from '../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { IpcBlockError } from '../../structs/ipcblock/ipc-block-error.js';
import { mapBlockFile } from '../../structs/ipcblock/mapping.js';
import { PROFILER, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const USER = 'clrscope-other';

let created = false;

function whyNoSecondUser(): string | undefined {
  if (process.platform !== 'linux') return 'other users are tested on Linux';
  if (process.getuid?.() !== 0) return 'creating a second user needs root';
  if (spawnSync('id', [USER]).status === 0) return undefined;
  const r = spawnSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', USER], { encoding: 'utf8' });
  if (r.status !== 0) return `useradd failed: ${r.stderr.trim()}`;
  created = true;
  return undefined;
}

const skip = whyNoSecondUser();
if (skip !== undefined) process.stderr.write(`other-user: SKIPPED: ${skip}\n`);

/** Runs `script` as the other user. */
function asOther(script: string): void {
  const r = spawnSync('runuser', ['-u', USER, '--', 'sh', '-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, `as ${USER}: ${script}\n${r.stderr}`);
}

describe('another local user cannot make clrscope write, read or reuse what they prepared', { skip }, () => {
  let dir: string;
  let shared: string;
  let mine: string;
  let input: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-other-user-'));
    chmodSync(dir, 0o755);
    // A folder both users write to, like /tmp itself (sticky, world-writable).
    shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    // Where the victim's own files are: the other user may not write there.
    mine = join(dir, 'mine');
    mkdirSync(mine, { mode: 0o755 });
    input = join(mine, 'in.clrscope');
    writeFileSync(input, saveRecording(recordingFromStream([fixtureStream()])));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    // The user this test made goes again; one that was there before stays.
    if (created) spawnSync('userdel', [USER]);
  });

  it('a link planted at the output is replaced, and nothing is created at its target', async () => {
    const target = join(mine, 'created-through-the-link');
    const out = join(shared, 'out.pb.gz');
    asOther(`ln -s ${target} ${out}`);
    const r = await runCli(['convert', input, '-o', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(target), false, 'the writability check and the write went through the link');
    assert.ok(lstatSync(out).isFile(), 'the link was replaced by the file');
    assert.equal(lstatSync(out).uid, 0);
    // And no temporary file is left for anyone to find.
    assert.deepEqual(readdirSync(shared).filter((n) => n.includes('partial')), []);
  });

  it('a planted link to one of the victim\'s files: the file keeps its contents', async () => {
    const precious = join(mine, 'precious.json');
    writeFileSync(precious, '"keep me"');
    const out = join(shared, 'p.speedscope.json');
    asOther(`ln -s ${precious} ${out}`);
    const r = await runCli(['convert', input, '-o', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(spawnSync('cat', [precious], { encoding: 'utf8' }).stdout, '"keep me"');
  });

  it('a clrscope-exports folder another user made (open to all) is not used for exports', async () => {
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp, { mode: 0o1777 });
    chmodSync(tmp, 0o1777);
    const squatted = join(tmp, `clrscope-exports-${process.getuid?.() ?? 0}`);
    asOther(`mkdir -m 777 ${squatted}`);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const workstation = createWorkstationService({ libraryPath: PROFILER });
    try {
      const session = await workstation.openRecording({ path: input });
      const result = await workstation.exportRecording({ sessionId: session.id, format: 'pprof' });
      assert.equal(readdirSync(squatted).length, 0, 'nothing went into the other user\'s folder');
      assert.ok(!result.path.startsWith(`${squatted}/`), result.path);
      const folder = statSync(dirname(result.path));
      assert.equal(folder.uid, 0);
      assert.equal(folder.mode & 0o777, 0o700);
    } finally {
      await workstation.shutdown();
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('a cache folder another user made is not used for the spool: the recording stays in memory and says so', async () => {
    const cache = join(shared, 'cache');
    asOther(`mkdir -m 777 ${cache} && mkdir -m 777 ${cache}/clrscope`);
    const out = join(mine, 'spool-refused.pb.gz');
    const r = await runCli(['record', '-o', out, '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.3'], { env: { XDG_CACHE_HOME: cache } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`clrscope: the recording is kept in memory only \\(cannot use ${cache}/clrscope/spool: ${cache}/clrscope belongs to another user \\(uid \\d+\\)\\), so it would be lost if clrscope were killed\\.`));
    assert.ok(existsSync(out));
    assert.deepEqual(readdirSync(join(cache, 'clrscope')), [], 'nothing written into the other user\'s folder');
  });

  it('a counters block another user put in /dev/shm is not read, nor one reached through a link', () => {
    const fake = `/dev/shm/clrscope-${4_000_000 + Math.floor(Math.random() * 100_000)}`;
    try {
      asOther(`head -c 2048 /dev/zero > ${fake} && chmod 600 ${fake}`);
      assert.throws(() => mapBlockFile(fake, 2048), (e: unknown) => e instanceof IpcBlockError && /belongs to another user \(uid \d+\), so it is not clrscope's: it is not read\.$/.test(e.message));
      rmSync(fake);
      const real = join(mine, 'block');
      writeFileSync(real, new Uint8Array(2048), { mode: 0o600 });
      asOther(`ln -s ${real} ${fake}`);
      assert.throws(() => mapBlockFile(fake, 2048), (e: unknown) => e instanceof IpcBlockError && /is a symbolic link/.test(e.message));
    } finally {
      rmSync(fake, { force: true });
    }
  });
});
