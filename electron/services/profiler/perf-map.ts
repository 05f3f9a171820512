// The runtime's perf map, which names its stubs and helpers where no profiler API does
// (native-profiler/GC-AND-STUBS-STUDY.md section (c)). At a launch the environment turns it on,
// into a directory of our own; before an attach the diagnostics command EnablePerfMap does
// (.NET 8+). Either way the profiler reads the map as it grows and removes the file once open
// (CLRSCOPE_PERF_MAP, client data perf_map=1; native-profiler/core/runtime_stubs.h).

import { readFileSync, rmSync } from 'node:fs';
import { ownedTempDirSync } from '../files/owned-temp-dir.js';
import { disablePerfMap, enablePerfMap } from '../diagnostics/client.js';

/** PerfMapType 3: the perf map alone (1 adds jitdump, a much larger file nobody here reads). */
const PERF_MAP_ONLY = 3;

/** What an attach that could not turn the map on, or turned it on late, leaves unnamed. */
export const ATTACH_STUBS_SENTENCE = 'the runtime\'s stubs made before the attach (most of them, in a warmed-up process) stay unnamed ("[runtime stub]"); launch the program under clrscope to name them all.';

/** True when the program's own settings already ask for a perf map: it is theirs, not ours to move or remove. */
function asksForPerfMap(env: Readonly<Record<string, string | undefined>>): boolean {
  return ['DOTNET_PerfMapEnabled', 'COMPlus_PerfMapEnabled'].some((k) => env[k] !== undefined && env[k] !== '');
}

/** clrscope's own switch: CLRSCOPE_PERF_MAP=0 leaves the runtime's perf map off (its cost is on JIT-heavy startups). */
function perfMapWanted(): boolean {
  return process.env.CLRSCOPE_PERF_MAP !== '0';
}

export interface LaunchPerfMap {
  /** Variables for the program: empty when the map is off or the program asks for one itself. */
  env: Record<string, string>;
  /** Removes the directory the map was written to (the profiler removed the file itself). */
  cleanup(): void;
}

/** The environment that makes a starting runtime write its perf map into a directory only this user can read. */
export function launchPerfMap(base: NodeJS.ProcessEnv): LaunchPerfMap {
  if (!perfMapWanted() || asksForPerfMap(base)) return { env: {}, cleanup: () => {} };
  // 0700: other users cannot read the program's method names; named for this clrscope, so a
  // later one removes it if this one is killed before its cleanup (files/owned-temp-dir.ts).
  const dir = ownedTempDirSync('perfmap');
  return {
    env: { DOTNET_PerfMapEnabled: String(PERF_MAP_ONLY), DOTNET_PerfMapJitDumpPath: dir, CLRSCOPE_PERF_MAP: '1' },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The process's environment as it started, or undefined when it cannot be read. */
function processEnvironment(pid: number): Record<string, string> | undefined {
  try {
    const env: Record<string, string> = {};
    for (const entry of readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return env;
  } catch {
    return undefined;
  }
}

// Processes whose perf map an attach of this clrscope turned on, until its collector closes.
const enabledForAttach = new Set<number>();

/**
 * After an attach's collector closed (the profiler detached or is detaching): the runtime stops
 * writing the map, which would otherwise cost the program an unbuffered write for every method
 * it compiles for as long as it runs. Best effort: the process may have exited.
 */
export async function releasePerfMap(pid: number): Promise<void> {
  if (!enabledForAttach.delete(pid)) return;
  await disablePerfMap(pid, { timeoutMs: 5000 }).catch(() => undefined);
}

/**
 * Before an attach: asks the runtime of `pid` for its perf map, unless it writes one already.
 * Resolves to the client data line that tells the profiler the map is clrscope's (read and
 * removed), or '' when the map is the program's own, off, or the runtime cannot (before .NET 8).
 */
export async function attachPerfMap(pid: number): Promise<string> {
  if (!perfMapWanted() || process.platform !== 'linux') return '';
  const env = processEnvironment(pid);
  // Unreadable: the program may well have asked for its own map; leave it alone.
  if (env === undefined || asksForPerfMap(env)) return '';
  try {
    // A map left on (a clrscope killed before its detach) writes to the file its profiler
    // removed: off and on again starts a new file.
    await disablePerfMap(pid, { timeoutMs: 5000 }).catch(() => undefined);
    await enablePerfMap(pid, PERF_MAP_ONLY, { timeoutMs: 5000 });
    enabledForAttach.add(pid);
    return 'perf_map=1\n';
  } catch {
    return '';
  }
}
