// Runs self-contained win-x64 .NET programs under Wine with clrscope's Windows profiler loaded,
// streaming over loopback TCP to a collector in this (Linux) process: what the Wine tests share.
// Built by scripts/setup-wine.sh (wine64, the win-x64 publishes, the mingw helpers, the prefix).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startCollector, type CollectedStream, type Collector } from '../../../electron/services/collector/collector.js';
import { profilerEnvironment } from '../../../electron/services/profiler/profiler-env.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { ROOT } from './paths.js';

export const WINE = process.env.CLRSCOPE_WINE ?? '/usr/lib/wine/wine64';
export const WINESERVER = process.env.CLRSCOPE_WINESERVER ?? '/usr/lib/wine/wineserver64';
export const WINE_PREFIX = join(ROOT, 'native-profiler', 'build-windows', 'wineprefix');
export const WINDOWS_PROFILER = join(ROOT, 'native-profiler', 'build-windows', 'clrscope.dll');

/** Why the Wine tests cannot run here, or undefined when they can (then every part must be built). */
export function wineSkipReason(): string | undefined {
  if (!existsSync(WINE)) return `${WINE} is missing: install Debian's wine64 (scripts/setup-wine.sh does)`;
  return undefined;
}

/** A built Windows-side file; throws (the test fails) when setup did not build it. */
function built(path: string, how: string): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: run ${how}`);
  return path;
}

export function windowsTarget(name: 'Scenarios' | 'GcLoad'): string {
  return built(join(ROOT, 'test', 'targets', name, 'bin', 'win-x64', `${name}.exe`), 'bash scripts/build-targets-windows.sh');
}

export function wineTool(name: 'pipe-relay' | 'read-mapping'): string {
  return built(join(ROOT, 'test', 'tools', 'wine-tools', 'bin', `${name}.exe`), 'bash scripts/build-targets-windows.sh');
}

/** The environment for a Wine process: the private prefix, Wine's own logging off. */
export function wineEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  built(join(WINE_PREFIX, 'system.reg'), 'bash scripts/setup-wine.sh');
  built(WINDOWS_PROFILER, 'bash scripts/build-native-windows.sh');
  const env: NodeJS.ProcessEnv = { ...process.env, WINEPREFIX: WINE_PREFIX, WINEDEBUG: '-all', ...extra };
  for (const name of ['CORECLR_ENABLE_PROFILING', 'CORECLR_PROFILER', 'CORECLR_PROFILER_PATH', 'CLRSCOPE_SOCKET', 'CLRSCOPE_SECRET']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/**
 * Starts the prefix's wineserver and Wine's own services (services.exe, winedevice, rpcss…)
 * with no stdio of ours, for a test that runs several Wine processes at once. Otherwise the
 * first process started brings them up and they inherit its stdout and stderr, and since they
 * stay while any process of the prefix runs (a relay, say), that process's pipes never close:
 * its exit, which Node reports once they do, is never seen. Pair with stopWinePrefix.
 */
export function startWinePrefix(): void {
  const env = wineEnvironment();
  // -p60: the server outlives its last client for a minute rather than not at all, so the
  // services stay between the processes a test starts; stopWinePrefix ends it.
  if (spawnSync(WINESERVER, ['-p60'], { env, stdio: 'ignore' }).status !== 0) throw new Error(`${WINESERVER} -p60 failed`);
  if (spawnSync(WINE, ['cmd', '/c', 'exit'], { env, stdio: 'ignore', timeout: 60000 }).status !== 0) throw new Error('wine cmd /c exit failed');
}

/** Ends every process of the test prefix and its wineserver (wineserver -k). */
export function stopWinePrefix(): void {
  spawnSync(WINESERVER, ['-k'], { env: wineEnvironment(), stdio: 'ignore', timeout: 30000 });
}

export interface WineProcess {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code once the process has exited and its output is read. */
  readonly exited: Promise<number | null>;
  /** Resolves with the first stdout line starting with `prefix` (without it), parsed as JSON. */
  line(prefix: string, timeoutMs?: number): Promise<unknown>;
}

export function startWine(exe: string, args: readonly string[], env: NodeJS.ProcessEnv): WineProcess {
  const child = spawn(WINE, [exe, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const waiters = new Map<string, (v: unknown) => void>();
  const lines: string[] = [];
  const find = (prefix: string): string | undefined => lines.find((l) => l.startsWith(`${prefix} `))?.slice(prefix.length + 1);
  let partial = '';
  const p: WineProcess = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('close', (code) => resolve(code))),
    line(prefix, timeoutMs = 60000) {
      const found = find(prefix);
      if (found !== undefined) return Promise.resolve(JSON.parse(found));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${prefix} line within ${timeoutMs} ms; stdout:\n${p.stdout}\nstderr:\n${p.stderr}`)), timeoutMs);
        waiters.set(prefix, (v) => { clearTimeout(timer); resolve(v); });
      });
    },
  };
  child.stdout.on('data', (d: Buffer) => {
    p.stdout += d.toString();
    // Whole lines only: a JSON line may arrive in pieces. Wine's console writes CRLF.
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.map((l) => l.replace(/\r$/, '')));
    for (const [prefix, resolve] of [...waiters]) {
      const found = find(prefix);
      if (found === undefined) continue;
      waiters.delete(prefix);
      resolve(JSON.parse(found));
    }
  });
  child.stderr.on('data', (d: Buffer) => { p.stderr += d.toString(); });
  return p;
}

export interface WineRun {
  exitCode: number | null;
  stream: CollectedStream;
  rec: Recording;
  stdout: string;
  stderr: string;
  /** The profiler's log (CLRSCOPE_LOG), for failure messages. */
  log: string;
}

export interface WineRunOptions {
  intervalMs?: number;
  wall?: boolean;
  /** A Linux path for the profiler's log; the test reads it back on failure. */
  logPath?: string;
  collector?: Collector;
}

/** The profiler variables for a Windows target streaming to `collector` over loopback TCP. */
export function profiledWineEnvironment(collector: Collector, options: WineRunOptions = {}): NodeJS.ProcessEnv {
  if (collector.secret === undefined) throw new Error('the Wine tests need a TCP collector (startCollector({ listen: "tcp" }))');
  const vars = profilerEnvironment({ socketPath: collector.socketPath, secret: collector.secret, intervalMs: options.intervalMs ?? 10, wall: options.wall ?? true, cpu: true }, WINDOWS_PROFILER);
  // The runtime takes the DLL's Unix path as it is; the log path goes through Wine's Z: drive.
  if (options.logPath !== undefined) vars.CLRSCOPE_LOG = `Z:${options.logPath.replaceAll('/', '\\')}`;
  // Under Wine an in-process EventPipe session kills the runtime's finalizer thread (shim/engine.cpp).
  vars.CLRSCOPE_RUNTIME_EVENTS = '0';
  return wineEnvironment(vars);
}

/** Runs `exe` under Wine with the profiler, to its exit; the stream of the process it started. */
export async function recordUnderWine(exe: string, args: readonly string[], options: WineRunOptions = {}): Promise<WineRun> {
  const collector = options.collector ?? await startCollector({ listen: 'tcp' });
  try {
    const proc = startWine(exe, args, profiledWineEnvironment(collector, options));
    const exitCode = await proc.exited;
    const log = await readLog(options.logPath);
    const [stream] = collector.streams;
    if (stream === undefined) throw new Error(`no stream from the Windows target (exit ${exitCode}); stderr:\n${proc.stderr}\nprofiler log:\n${log}`);
    // The profiler sends END as the runtime shuts down; the connection closes with the process.
    await Promise.race([stream.closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    return { exitCode, stream, rec: stream.recording, stdout: proc.stdout, stderr: proc.stderr, log };
  } finally {
    if (options.collector === undefined) await collector.close();
  }
}

export async function readLog(path: string | undefined): Promise<string> {
  if (path === undefined || !existsSync(path)) return '';
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}
