// The runtime's perf map, which names its stubs and helpers where no profiler API does
// (native-profiler/GC-AND-STUBS-STUDY.md section (c)). At a launch the environment turns it on,
// into a directory of our own; before an attach the diagnostics command EnablePerfMap does
// (.NET 8+). Either way the profiler reads the map as it grows and removes the file once open
// (CLRSCOPE_PERF_MAP, client data perf_map=1; native-profiler/core/runtime_stubs.h).

import { lstatSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { ownedTempDirSync } from '../files/owned-temp-dir.js';
import { disablePerfMap, enablePerfMap } from '../diagnostics/client.js';
import { hostPathOf, namespacesOf } from '../diagnostics/namespaces.js';

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

/** The files a runtime writes once EnablePerfMap turned its map on, as this clrscope reaches them. */
interface AttachMapFiles {
  paths: string[];
  /** The process's user: a file at those paths owned by anyone else is not the runtime's. */
  uid: number;
}

// Processes whose perf map an attach of this clrscope turned on, until its collector closes.
const enabledForAttach = new Map<number, AttachMapFiles>();

/** Where the runtime of `pid` writes its map and perfinfo file: its own DOTNET_PerfMapJitDumpPath, else /tmp (perfmap.cpp). */
function attachMapFiles(pid: number, env: Readonly<Record<string, string | undefined>>): AttachMapFiles | undefined {
  try {
    const ns = namespacesOf(pid);
    const dir = env.DOTNET_PerfMapJitDumpPath || env.COMPlus_PerfMapJitDumpPath || '/tmp';
    const uid = lstatSync(`/proc/${pid}`).uid;
    return { paths: ['perf', 'perfinfo'].map((name) => hostPathOf(ns, `${dir}/${name}-${ns.nsPid}.map`)), uid };
  } catch {
    return undefined;
  }
}

/**
 * Removes what the runtime wrote that its profiler did not: the map when the profiler never
 * opened it (the attach failed, or the process died first), and the perfinfo file. Only a plain
 * file of the process's user: a link or another user's file at that path is left alone.
 */
function removeLeftFiles(files: AttachMapFiles): void {
  for (const path of files.paths) {
    try {
      const st = lstatSync(path);
      if (st.isFile() && st.uid === files.uid) unlinkSync(path);
    } catch {
      // Gone already (the profiler removed it), or never written.
    }
  }
}

/**
 * After an attach's collector closed (the profiler detached or is detaching, or the attach
 * failed): the runtime stops writing the map, which would otherwise cost the program an
 * unbuffered write for every method it compiles for as long as it runs, and nothing it wrote
 * stays behind. Best effort: the process may have exited.
 */
export async function releasePerfMap(pid: number): Promise<void> {
  const files = enabledForAttach.get(pid);
  if (files === undefined) return;
  enabledForAttach.delete(pid);
  await disablePerfMap(pid, { timeoutMs: 5000 }).catch(() => undefined);
  removeLeftFiles(files);
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
    const files = attachMapFiles(pid, env);
    // Without knowing where the files go, they could not be cleared away: no map.
    if (files === undefined) return '';
    // Known before the request: one that times out may still have turned the map on, and the
    // collector's close releases it either way.
    enabledForAttach.set(pid, files);
    await enablePerfMap(pid, PERF_MAP_ONLY, { timeoutMs: 5000 });
    return 'perf_map=1\n';
  } catch {
    return '';
  }
}
