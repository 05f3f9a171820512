// A .NET target launched under `clrscope record`, so that clrscope's own profiler, loaded at
// startup, is the other profiler the runtime already has: the runtime takes only one, so an
// attach to it is refused and clrscope falls back to an EventPipe session.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { processAlive } from '../../../electron/services/recording/profiled-attach.js';
import { CLI } from './paths.js';

export interface UnderClrscope {
  /** The `clrscope record -- dotnet …` process. */
  child: ChildProcess;
  /** The target's own pid (from its READY line). */
  pid: number;
  /** The target's stdout (clrscope record passes it through). */
  stdout: () => string;
  /** clrscope's stderr, then the target's. */
  stderr: () => string;
  /** clrscope's exit code: the target's own. */
  exited: Promise<number | null>;
  /** Kills the target and clrscope: killing clrscope alone would leave the target running. */
  kill: () => void;
}

/** Starts `clrscope record -o OUTPUT -- dotnet DLL ARGS` and waits for the target's READY line. */
export async function startUnderClrscope(dll: string, args: readonly string[], output: string): Promise<UnderClrscope> {
  const child = spawn(process.execPath, [CLI, 'record', '-o', output, '--', 'dotnet', dll, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let pid = 0;
  // Still our target, not a process that got its pid after it exited.
  const ours = (): boolean => {
    try {
      return pid > 0 && processAlive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dll);
    } catch {
      return false;
    }
  };
  const kill = (): void => {
    if (ours()) process.kill(pid, 'SIGKILL');
    child.kill('SIGKILL');
  };
  const deadline = Date.now() + 30000;
  while (!/READY \{"pid":\d+/.test(out) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  pid = Number(/READY \{"pid":(\d+)/.exec(out)?.[1] ?? 0);
  if (!(pid > 0)) kill();
  assert.ok(pid > 0, `no READY line from the target under clrscope record: ${out}\n${err}`);
  return { child, pid, stdout: () => out, stderr: () => err, exited, kill };
}
