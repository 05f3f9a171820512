// Root attaching to a .NET process of another user (issue 29): Microsoft's .NET images run the app
// as uid 1654 ("app"), so a host root profiling a container usually meets a process that is not
// its own. The profiler loads as that user, so the collector's socket and the library copy are
// granted to it (recording/container-attach.ts, otherOwner); the same for a host process of
// another user. `ps` says attachable, `record` records the hot method at its share, `counters`
// reads, and nothing of clrscope's stays in the container.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { processAlive } from '../../electron/services/recording/profiled-attach.js';
import type { ProcessInfo } from '../../structs/api/contract.js';
import { heavyLightSplit } from './support/cpu-split.js';
import { clrscopeLeftovers, startInContainer, unshareWorks, type ContainedTarget } from './support/in-container.js';
import { targetDll } from './support/paths.js';
import { samplesOf } from './support/record-target.js';
import { runCli, stopAfterLines } from './support/run-cli.js';

const NS = 'Clrscope.Targets.Scenarios.';
// The app user of Microsoft's .NET container images.
const APP_UID = 1654;
const AS_APP = ['setpriv', `--reuid=${APP_UID}`, `--regid=${APP_UID}`, '--clear-groups', 'env', 'HOME=/tmp'];

const skip = unshareWorks() ? false : 'unshare cannot make mount and pid namespaces here (needs root)';

// The target's files where uid 1654 can read them: a fresh clone often lies in root's 0700 temp
// folder, and /tmp itself is covered by the container's own tmpfs.
const shared = mkdtempSync('/var/tmp/clrscope-other-user-');
chmodSync(shared, 0o755);
after(() => rmSync(shared, { recursive: true, force: true }));
const out = join(shared, 'out');
const dll = (): string => {
  const original = targetDll('Scenarios');
  cpSync(dirname(original), out, { recursive: true });
  return join(out, basename(original));
};

async function record(pid: number, file: string): Promise<{ share: number; tolerance: number; line: string; stderr: string }> {
  const r = await runCli(['record', '--pid', String(pid), '--duration', '4', '-o', file], { timeoutMs: 90000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`detached from pid ${pid}; it keeps running`));
  assert.doesNotMatch(r.stderr, /EventPipe/, 'clrscope\'s own profiler recorded it');
  return { ...heavyLightSplit(samplesOf(openRecording(readFileSync(file)).recording), NS, 6), stderr: r.stderr };
}

async function listed(pid: number): Promise<ProcessInfo | undefined> {
  const r = await runCli(['ps', '--json'], { timeoutMs: 30000 });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as ProcessInfo[]).find((p) => p.pid === pid);
}

describe('root and a .NET process of another user', { skip }, () => {
  let path: string;
  before(() => {
    path = dll();
  });

  describe('in a container, as its app user (uid 1654)', () => {
    let target: ContainedTarget;
    before(async () => {
      target = await startInContainer(path, ['cpu-ratio', '--seconds', '90'], { launcher: AS_APP });
    });
    after(() => target?.kill());

    it('is listed as attachable, is recorded twice with Heavy at 3:1, and keeps nothing of clrscope\'s', async (t) => {
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${target.hostPid}/status`, 'utf8'))?.[1];
      assert.equal(Number(uid), APP_UID, 'the target runs as the app user');
      const entry = await listed(target.hostPid);
      assert.deepEqual(entry && { attachable: entry.attachable, reason: entry.reason, container: entry.container?.pid }, { attachable: true, reason: null, container: 1 });
      for (const round of [1, 2]) {
        const split = await record(target.hostPid, join(shared, `app-${round}.clrscope`));
        t.diagnostic(`round ${round}: ${split.line}`);
        assert.ok(Math.abs(split.share - 75) <= split.tolerance, split.line);
        assert.deepEqual(clrscopeLeftovers(target.hostPid), [], 'the socket\'s folder and the library copy went at detach');
        assert.ok(processAlive(target.hostPid));
      }
    });

    it('counters --pid reads its counters', async () => {
      const r = await runCli(['counters', '--pid', String(target.hostPid), '--format', 'json', '--refresh', '250'], { timeoutMs: 60000, started: stopAfterLines(3) });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { pid: number; locksAndThreads: { currentThreadsPhysical: number } });
      assert.ok(lines.length >= 2, `${lines.length} lines: ${r.stderr}`);
      assert.ok(lines[lines.length - 1].locksAndThreads.currentThreadsPhysical >= 3);
      assert.deepEqual(clrscopeLeftovers(target.hostPid), []);
    });
  });

  describe('on the host, as another user', () => {
    it('is recorded with Heavy at 3:1, its profiler reaching a socket and a library copy granted to its user', async (t) => {
      // Not root's TMPDIR: another user's process has its own temp folder (the collector's socket goes there).
      const env = { ...process.env };
      delete env.TMPDIR;
      const child = spawn(AS_APP[0], [...AS_APP.slice(1), 'dotnet', path, 'cpu-ratio', '--seconds', '60'], { stdio: ['ignore', 'pipe', 'pipe'], env });
      try {
        let text = '';
        child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
        const deadline = Date.now() + 30000;
        let ready: RegExpExecArray | null = null;
        while ((ready = /^READY (\{.*\})$/m.exec(text)) === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.ok(ready !== null, `never READY: ${text}`);
        const pid = (JSON.parse(ready[1]) as { pid: number }).pid;
        assert.equal((await listed(pid))?.attachable, true);
        const split = await record(pid, join(shared, 'host.clrscope'));
        t.diagnostic(split.line);
        assert.ok(Math.abs(split.share - 75) <= split.tolerance, split.line);
      } finally {
        child.kill('SIGKILL');
      }
    });
  });
});
