// Runs the real clrscope CLI as a user would and collects what it printed.

import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './paths.js';

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Called once the CLI is running (e.g. to send it a signal later). */
  started?: (child: ChildProcess) => void;
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`clrscope ${args.join(' ')} did not finish in ${options.timeoutMs ?? 120000} ms\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 120000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    options.started?.(child);
  });
}

/** The RESULT {json} line a target program prints last. */
export function resultOf(stdout: string): Record<string, unknown> {
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`no RESULT line in:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, unknown>;
}

/** Ctrl-C for a running `counters` once it printed `n` lines (however long its attach took on a loaded machine), or after 40 s. */
export function stopAfterLines(n: number): (child: ChildProcess) => void {
  return (child) => {
    let lines = 0;
    let sent = false;
    // Once: a second Ctrl-C while it detaches would end it by the signal.
    const stop = (): void => {
      if (sent) return;
      sent = true;
      child.kill('SIGINT');
    };
    const timer = setTimeout(stop, 40000);
    child.stdout?.on('data', (d: Buffer) => {
      lines += d.toString().split('\n').length - 1;
      if (lines >= n) {
        clearTimeout(timer);
        stop();
      }
    });
  };
}
