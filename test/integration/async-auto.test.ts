// Attach's "auto" async call stacks (issue 26): on, from the runtime's events, when the process
// awaits little, off when following its awaits would cost it more than 3%; the rate is the
// thread-pool work items the process completed a second, measured over one second before the
// attach (electron/services/workstation/recording-switches.ts). Two real processes: AsyncChain's
// tight-await loop with 20 ms of work a step (about 100 continuations a second) and with none
// (hundreds of thousands), each attached from the workstation service with asyncAuto, its
// session's message and its exported speedscope profile read.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { PROFILER, targetDll } from './support/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-auto-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Attaches to AsyncChain `awaits` at `workUs` a step with asyncAuto; the session's message and the names of its exported frames. */
async function attachAuto(workUs: number, name: string): Promise<{ message: string; frames: string[] }> {
  const target: ChildProcess = spawn('dotnet', [targetDll('AsyncChain'), 'awaits', '--seconds', '40', '--work-us', String(workUs)], { stdio: 'ignore' });
  const workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, `exports-${name}`), settingsDir: join(dir, `settings-${name}`) });
  try {
    // Past its startup and its work calibration: the loop is what the second before the attach sees.
    await delay(3000);
    const info = await workstation.attach({ pid: target.pid!, asyncAuto: true });
    await delay(4000);
    await workstation.stop(info.id);
    const session = (await workstation.listSessions()).find((s) => s.id === info.id);
    const out = join(dir, `${name}.speedscope.json`);
    await workstation.exportRecording({ sessionId: info.id, format: 'speedscope', path: out });
    const profile = JSON.parse(readFileSync(out, 'utf8')) as { shared: { frames: { name: string }[] } };
    return { message: session?.message ?? '', frames: profile.shared.frames.map((f) => f.name) };
  } finally {
    await workstation.shutdown();
    target.kill('SIGKILL');
  }
}

describe("Attach's auto async call stacks", () => {
  it('turns them on for a process that awaits little, says so, and records [await] frames', { timeout: 120000 }, async (t) => {
    const { message, frames } = await attachAuto(20000, 'low');
    t.diagnostic(message);
    const rate = /completed ([\d,]+) thread-pool work items a second/.exec(message);
    assert.ok(rate !== null, message);
    assert.ok(Number(rate[1].replace(/,/g, '')) < 2000, message);
    assert.match(message, /Async call stacks are on \(from the runtime's events\)/);
    assert.ok(frames.some((f) => f.startsWith('[await] ')), `no [await] frame among ${frames.length}`);
  });

  it('leaves them off for a process that awaits hundreds of thousands of times a second, says so, and records no [await] frame', { timeout: 120000 }, async (t) => {
    const { message, frames } = await attachAuto(0, 'high');
    t.diagnostic(message);
    const rate = /completed ([\d,]+) thread-pool work items a second/.exec(message);
    assert.ok(rate !== null, message);
    assert.ok(Number(rate[1].replace(/,/g, '')) >= 2000, message);
    assert.match(message, /Async call stacks are off: /);
    assert.ok(frames.length > 10, `only ${frames.length} frames recorded`);
    assert.deepEqual(frames.filter((f) => f.startsWith('[await] ')), []);
  });
});
