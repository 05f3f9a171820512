// Torture: a detach while a thread is held inside clrscope's signal handler, as a debugger stopped
// at a breakpoint there would hold it. Unloading the library then would resume that thread into
// unmapped code. The engine must see the handler busy, say so in its log, keep the library mapped
// for as long as the thread is held, and finish the detach once it has left; the program runs on
// to the RESULT and exit code of a run without clrscope. The holding is done by hold-in-handler
// (test/targets/Torture/native/hold_in_handler.c, ptrace), on a thread burning CPU in managed code.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay } from '../../electron/services/recording/profiled-launch.js';
import { PROFILER, ROOT } from './support/paths.js';
import { EXIT_CODE, assertUnchanged, libraryMapped, plainEnv, runPlain, tail, tortureArgs, type Outcome } from './support/torture.js';

const HOLD = join(ROOT, 'test', 'targets', 'Torture', 'bin', 'native', 'hold-in-handler');
const BUSY_LINE = "a thread is stopped inside clrscope's signal handler; the detach waits until it leaves";
const logs = mkdtempSync(join(tmpdir(), 'clrscope-held-'));
after(() => rmSync(logs, { recursive: true, force: true }));

function logText(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

describe('torture: a detach while a thread is held inside the signal handler', () => {
  it('waits for the thread, keeps the library mapped until it leaves, then detaches; the program runs on unchanged', { timeout: 240000 }, async (t) => {
    assert.ok(existsSync(HOLD), `${HOLD} is missing: run bash scripts/build-torture-native.sh`);
    const plain = await runPlain('serve', ['--seconds', '1']);
    assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));

    const log = join(logs, 'serve.log');
    const child = spawn('dotnet', tortureArgs('serve', ['--seconds', '600']), { env: plainEnv({ CLRSCOPE_LOG: log }), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<Outcome>((resolve) => child.once('close', (code, signal) => {
      const result = out.split('\n').filter((l) => l.startsWith('RESULT ')).at(-1) ?? '';
      resolve({ code, signal, stdout: out, stderr: err, result, facts: [] });
    }));
    const pid = child.pid ?? 0;
    let holder: ReturnType<typeof spawn> | undefined;
    let session: Awaited<ReturnType<typeof attachProfiled>> | undefined;
    try {
      const deadline = Date.now() + 30000;
      while (!/^READY /m.test(out) && child.exitCode === null && Date.now() < deadline) await delay(50);
      assert.match(out, /^READY /m, `the program never got ready: ${err}`);
      session = await attachProfiled({ pid, intervalMs: 1, wall: true, cpu: true, libraryPath: PROFILER });
      await delay(300);

      const hold = spawn(HOLD, [String(pid), 'steady-0'], { stdio: ['pipe', 'pipe', 'pipe'] });
      holder = hold;
      let said = '';
      hold.stdout.on('data', (d: Buffer) => { said += d.toString(); });
      hold.stderr.on('data', (d: Buffer) => { said += d.toString(); });
      const holderExit = new Promise<number | null>((resolve) => hold.once('close', (code) => resolve(code)));
      const heldBy = Date.now() + 60000;
      while (!/^HELD /m.test(said) && hold.exitCode === null && Date.now() < heldBy) await delay(20);
      assert.match(said, /^HELD /m, `hold-in-handler did not hold the thread (exit ${hold.exitCode}): ${said}`);

      // The workstation hangs up: the profiler detaches, or tries to.
      const detached = session.detach();
      const seenBy = Date.now() + 15000;
      while (!logText(log).includes(BUSY_LINE) && Date.now() < seenBy) await delay(50);
      assert.ok(logText(log).includes(BUSY_LINE), `the profiler's log never said a handler was busy:\n${tail(logText(log), 12)}`);
      await delay(1000);
      assert.ok(libraryMapped(pid), 'libclrscope was unmapped while a thread was held inside its handler');
      assert.equal(child.exitCode, null, `the program exited while held: ${tail(err)}`);

      hold.stdin?.end('release\n');
      assert.equal(await holderExit, 0, `hold-in-handler: ${said}`);
      await detached;
      const unmappedBy = Date.now() + 10000;
      while (libraryMapped(pid) && Date.now() < unmappedBy) await delay(50);
      assert.ok(!libraryMapped(pid), `libclrscope still mapped 10 s after the held thread left:\n${tail(logText(log), 12)}`);
      t.diagnostic(tail(logText(log), 3));

      child.stdin.end();
      assertUnchanged(plain, await exited, 'after a detach with a thread held in the handler');
    } finally {
      if (holder !== undefined && holder.exitCode === null) holder.kill('SIGKILL');
      // A failed assertion must not leave the collector open: the test process would never end.
      await session?.collector.close().catch(() => undefined);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
