// RequestWeb (test/targets/RequestWeb) recorded with --requests while its load generator sends 16
// connections of /block/300 (sync over async on pool threads) and /cpu/5 for 6 s: a starved pool
// on this 2-core machine, for threadpool.test.ts and workstation-requests.test.ts; and RequestWeb
// attached under any load (attachedRequestWeb), for requests.test.ts too.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT } from './paths.js';
import { runCli } from './run-cli.js';

/** The load; the requests it sent. */
function starve(url: string): number {
  const load = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '6', '--parallel', '16', '--paths', '/block/300,/cpu/5'], { encoding: 'utf8', timeout: 90_000 });
  assert.equal(load.status, 0, load.stderr);
  return (resultOf(load.stdout) as { sent: number }).sent;
}

function resultOf(stdout: string): unknown {
  const m = /^RESULT (.*)$/m.exec(stdout);
  assert.ok(m !== null, `no RESULT line in ${stdout}`);
  return JSON.parse(m[1]);
}

export const WEB_DLL = join(ROOT, 'test', 'targets', 'RequestWeb', 'bin', 'out', 'RequestWeb.dll');

/** A starved recording: its file, the requests the load sent, and the work items the program's pool completed in its life (its own count). */
export interface Starved {
  file: string;
  sent: number;
  completedWorkItems: number;
}

function starved(file: string, run: { loaded: number; stdout: string }): Starved {
  const result = resultOf(run.stdout) as { completedWorkItems: number };
  return { file, sent: run.loaded, completedWorkItems: result.completedWorkItems };
}

/** Records `command args serve` into DIR/pool.clrscope under the load. */
export async function recordStarved(dir: string, command: string, args: readonly string[]): Promise<Starved> {
  const file = join(dir, 'pool.clrscope');
  return starved(file, await recordedRequestWeb(file, command, args, starve));
}

/** The URL a RequestWeb started by `child` (directly or under clrscope) listens on, from its LISTENING line; its stdout so far is kept in `out`. */
function listeningUrl(child: ChildProcess, out: { stdout: string; stderr: string }): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`RequestWeb did not listen in 60 s\n${out.stderr}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out.stdout += d.toString();
      const m = /LISTENING (\S+)/.exec(out.stdout);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
}

/**
 * `clrscope record --requests [RECORDARGS] -o FILE -- COMMAND ARGS serve`, and `load(url)` once RequestWeb
 * listens; then the server is shut down and the record must end with 0. What the load returned,
 * and the record's stdout (the program's own, RESULT line included).
 */
export async function recordedRequestWeb<T>(file: string, command: string, args: readonly string[], load: (url: string) => T, recordArgs: readonly string[] = [], env: Record<string, string> = {}): Promise<{ loaded: T; stdout: string }> {
  const cli = spawn(process.execPath, [CLI, 'record', '--requests', ...recordArgs, '-o', file, '--', command, ...args, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out = { stdout: '', stderr: '' };
  cli.stderr.on('data', (d: Buffer) => { out.stderr += d.toString(); });
  const exited = new Promise<number | null>((resolve) => cli.on('close', (code) => resolve(code)));
  const url = await listeningUrl(cli, out);
  const loaded = load(url);
  // A load that stopped the server itself (RequestWeb load --shutdown) leaves nothing to answer.
  await fetch(`${url}/shutdown`, { method: 'POST' }).catch(() => undefined);
  assert.equal(await exited, 0, out.stderr);
  return { loaded, stdout: out.stdout };
}

/**
 * RequestWeb started on its own on .NET 10, then `record --pid --requests` attached to it, the load
 * only once the profiler is in (as requests.test.ts attaches); the file's path.
 */
export async function attachStarved(dir: string): Promise<Starved> {
  const file = join(dir, 'pool-attached.clrscope');
  return starved(file, await attachedRequestWeb(file, 12, 1000, starve));
}

/**
 * RequestWeb (`serve`, .NET 10) started on its own, `record --pid --requests --duration SECONDS -o
 * FILE` attached to it, and `load(url)` run once the profiler is in and `settleMs` more have gone
 * (the runtime turns the DiagnosticSource bridge on as the profiler's session starts, and
 * ASP.NET Core's listener needs a moment to see it); then the server is shut down. What the load
 * returned, and the server's stdout.
 */
export async function attachedRequestWeb<T>(file: string, seconds: number, settleMs: number, load: (url: string) => T, recordArgs: readonly string[] = []): Promise<{ loaded: T; stdout: string }> {
  const server = spawn('dotnet', [WEB_DLL, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  const serverExited = new Promise<number | null>((resolve) => server.on('close', (code) => resolve(code)));
  const url = await listeningUrl(server, out);
  const pid = server.pid ?? 0;
  const recorded = runCli(['record', '--pid', String(pid), '--requests', ...recordArgs, '--duration', String(seconds), '-o', file], { timeoutMs: 90_000 });
  const deadline = Date.now() + 30_000;
  while (!readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libclrscope') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, settleMs));
  const loaded = load(url);
  const r = await recorded;
  assert.equal(r.code, 0, r.stderr);
  await fetch(`${url}/shutdown`, { method: 'POST' });
  assert.equal(await serverExited, 0);
  return { loaded, stdout: out.stdout };
}
