// A `clrscope record` killed with SIGKILL cannot remove its collector's socket folder from the
// temp folder (issue 23). The folder's name carries the pid and start time of the clrscope that
// made it, and the next clrscope to make one removes those whose owner has ended: here the
// killed run's folder is gone after another record, while a clrscope still recording keeps its
// own. The runs get a temp folder of their own (TMPDIR), so nothing else's folders are touched.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { targetDll } from './support/paths.js';
import { runCli, type CliRun } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-killed-cli-test-'));
const temp = join(dir, 'tmp');
mkdirSync(temp, { mode: 0o700 });
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { TMPDIR: temp, XDG_CACHE_HOME: join(dir, 'cache') };

const clrscopeFolders = (): string[] => readdirSync(temp).filter((n) => n.startsWith('clrscope-'));
const present = (names: readonly string[]): string[] => names.filter((n) => clrscopeFolders().includes(n));

/** Starts `clrscope record` on a program sleeping `seconds`; resolves once the program runs under it. */
function startRecording(seconds: number): Promise<{ child: ChildProcess; done: Promise<CliRun> }> {
  return new Promise((resolve, reject) => {
    const done = runCli(['record', '-o', join(dir, `sleep-${seconds}.pb.gz`), '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', String(seconds)], {
      env,
      started: (child) => {
        let text = '';
        child.stdout?.on('data', (d: Buffer) => {
          text += d.toString();
          if (text.includes('READY ')) resolve({ child, done });
        });
      },
    });
    done.catch(reject);
  });
}

describe('a clrscope killed with SIGKILL leaves no socket folder for long', () => {
  it('the next clrscope removes the killed one\'s folder and keeps a live one\'s', async () => {
    const killed = await startRecording(4);
    const killedFolders = clrscopeFolders();
    // The collector's socket folder, and the runtime's perf map folder (profiler/perf-map.ts).
    assert.ok(killedFolders.length >= 1, 'the recording\'s collector folder');
    killed.child.kill('SIGKILL');
    assert.equal((await killed.done).signal, 'SIGKILL');
    assert.deepEqual(present(killedFolders), killedFolders, 'SIGKILL left the folder (nothing could remove it)');

    const live = await startRecording(8);
    const liveFolders = clrscopeFolders().filter((n) => !killedFolders.includes(n));
    try {
      assert.ok(liveFolders.length >= 1);
      const next = await runCli(['record', '-o', join(dir, 'next.pb.gz'), '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.3'], { env });
      assert.equal(next.code, 0, next.stderr);
      assert.deepEqual(present(killedFolders), [], 'the killed clrscope\'s folder is removed');
      assert.deepEqual(present(liveFolders), liveFolders, 'a live clrscope keeps its folder');
    } finally {
      live.child.kill('SIGINT');
      await live.done;
    }
    assert.deepEqual(clrscopeFolders(), [], 'a clrscope that ends removes its own');
  });
});
