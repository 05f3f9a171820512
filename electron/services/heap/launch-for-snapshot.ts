// `clrscope heap [--after S] -- PROGRAM ARGS`: starts the program as it is (its own stdin, stdout
// and stderr, no profiler), waits until its runtime's diagnostics socket is there and S seconds
// have passed, and hands back its pid for the snapshot; afterwards the command waits for the
// program to end and exits as it did, as `clrscope record` does.

import { spawn } from 'node:child_process';
import { diagnosticsSocket } from '../diagnostics/client.js';
import { UserError } from '../errors/user-error.js';
import { commandExitCode, exitText } from '../recording/program-exit.js';
import type { ProgramExit } from '../recording/profiled-launch.js';

/** How long a launched program may take to open its diagnostics socket. */
const SOCKET_TIMEOUT_MS = 30_000;

export async function launchForSnapshot(command: string, args: readonly string[], afterMs: number): Promise<{ pid: number; finish: () => Promise<number> }> {
  const child = spawn(command, args, { stdio: 'inherit' });
  let exit: ProgramExit | undefined;
  const exited = new Promise<ProgramExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const spawnError = await new Promise<Error | undefined>((resolve) => {
    child.once('error', resolve);
    child.once('spawn', () => resolve(undefined));
  });
  if (spawnError !== undefined || child.pid === undefined) throw new UserError(`Cannot start ${command}: ${spawnError?.message ?? 'no process'}.`);
  const pid = child.pid;
  const started = Date.now();
  for (;;) {
    if (exit !== undefined) throw new UserError(`${command} ${exitText(exit)} before its heap snapshot was taken.`);
    const waited = Date.now() - started;
    if (waited >= afterMs) {
      try {
        await diagnosticsSocket(pid);
        break;
      } catch (err) {
        if (waited >= Math.max(afterMs, SOCKET_TIMEOUT_MS)) {
          child.kill('SIGKILL');
          throw new UserError(`${command} (process ${pid}) opened no .NET diagnostics socket within ${SOCKET_TIMEOUT_MS / 1000} s: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { pid, finish: async () => commandExitCode(await exited) };
}
