// A .NET target started the ordinary way (no profiler variables), as a user's running
// program would be: for the process picker to find and for attach.

import { spawn, type ChildProcess } from 'node:child_process';

export interface PlainTarget {
  pid: number;
  child: ChildProcess;
  stdout(): string;
  stop(): Promise<void>;
}

/** Starts `dotnet DLL ARGS` and resolves once it printed its READY line (Scenarios) or `readyAfterMs` passed. */
export function startPlainTarget(dll: string, args: readonly string[], options: { readyAfterMs?: number; timeoutMs?: number } = {}): Promise<PlainTarget> {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CORECLR_') || key.startsWith('CLRSCOPE_')) delete env[key];
  const child = spawn('dotnet', [dll, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const target: PlainTarget = {
    pid: child.pid ?? -1,
    child,
    stdout: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void target.stop(); reject(new Error(`${dll} did not get ready; stderr: ${err}`)); }, options.timeoutMs ?? 30000);
    const ready = (): void => { clearTimeout(timer); resolve(target); };
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (options.readyAfterMs === undefined && /^READY /m.test(out)) ready();
    });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.once('error', (e) => { clearTimeout(timer); reject(e); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${dll} exited (${code}) before it was ready; stderr: ${err}`)); });
    if (options.readyAfterMs !== undefined) setTimeout(ready, options.readyAfterMs);
  });
}
