// Lists the .NET processes on this machine that matter to the user: every live process with a
// diagnostics socket in the temp directories, and every process of this user that has a .NET
// runtime mapped but no socket. Each comes with its name, command line, runtime version (from
// ProcessInfo2), whether clrscope's profiler is loaded, and whether clrscope can record it:
// with its profiler, only through an EventPipe session (the runtime would refuse the profiler
// because it already has one), or not at all, and why. Sockets of processes that have exited are skipped. The runtimes are asked in
// parallel, each with a short deadline, so a hung or stopped process costs one timeout, not a
// hang.

import { access, stat } from 'node:fs/promises';
import { PROFILER_CLSID } from '../profiler/profiler-env.js';
import { processInfo, processInfo2 } from '../diagnostics/client.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import {
  PROC, appNameFromArgv, coreclrPathIn, diagnosticsSocketDisabledBy, displayName, listPids, mapsInclude, readCmdline, readEnviron, readMaps,
  readStat, runtimeVersionFromCoreclrPath, type ProcStat,
} from '../diagnostics/proc.js';
import { defaultTempDirs, listSockets, locateSocket, type SocketEntry } from '../diagnostics/socket-location.js';
import { currentUid, userName } from '../diagnostics/users.js';
import { containerLabel, counterBlockPath, inContainer, namespacesOf } from '../diagnostics/namespaces.js';
import { muslIn, ROOT_DENIED_CLAUSE, rootReadable } from '../diagnostics/container-checks.js';
import { HRESULT } from '../../../structs/diagnostics/hresults.js';
import type { ContainerInfo, ProcessInfo } from '../../../structs/api/contract.js';

/** What `clrscope ps` and the workstation show (structs/api/contract.ts), and what attaching needs. */
export interface DotnetProcess extends ProcessInfo {
  uid: number | null;
  user: string | null;
  socketPath: string | null;
  os: string | null;
  arch: string | null;
}

/** The shared part alone, keys in the contract's order (`clrscope ps --json` prints exactly these), with `reason` as given. */
export function processInfoOf(p: DotnetProcess, reason: string | null = p.reason): ProcessInfo {
  return {
    pid: p.pid,
    name: p.name,
    commandLine: p.commandLine,
    runtimeVersion: p.runtimeVersion,
    attachable: p.attachable,
    eventPipeOnly: p.eventPipeOnly,
    reason,
    clrscopeLoaded: p.clrscopeLoaded,
    container: p.container,
  };
}

export interface DiscoveryOptions {
  /** Deadline for each process's ProcessInfo2, in ms (default 1500). */
  timeoutMs?: number;
  /** Temp directories to scan for sockets (default: ours and /tmp; a process's own TMPDIR is looked at too). */
  tempDirs?: readonly string[];
  /** How many runtimes are asked at once (default 16). */
  concurrency?: number;
  /** Where the profiler's shared-memory file for a pid is (default /dev/shm/clrscope-PID, in the process's own namespaces). */
  clrscopeMarker?: (pid: number) => string;
  proc?: string;
}

export const DEFAULT_DISCOVERY_TIMEOUT_MS = 1500;

/**
 * The file clrscope's profiler publishes while loaded: structs/ipcblock/mapping.ts's
 * blockPathForPid (a test pins them equal), under the process's root and with its own pid when
 * it runs in a container.
 */
export function clrscopeMarkerPath(pid: number): string {
  return counterBlockPath(pid);
}

/** The container columns of a process, null when it shares clrscope's namespaces. */
export function containerOf(pid: number, proc = PROC): ContainerInfo | null {
  const ns = namespacesOf(pid, proc);
  const id = containerLabel(ns);
  if (!inContainer(ns) || id === undefined) return null;
  return { pid: ns.nsPid, id, cgroup: ns.cgroup ?? null };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  });
  await Promise.all(workers);
  return out;
}

interface Candidate {
  pid: number;
  stat: ProcStat;
  uid: number;
  socket: SocketEntry | undefined;
  /** Undefined when the maps were not readable. */
  maps: string | undefined;
}

/** The process's owner: the owner of its /proc directory (its effective uid). */
async function procOwner(pid: number, proc: string): Promise<number | undefined> {
  try {
    return (await stat(`${proc}/${pid}`)).uid;
  } catch {
    return undefined;
  }
}

function isDotnetHost(argv: readonly string[] | undefined): boolean {
  const exe = argv?.[0];
  return exe !== undefined && /(^|\/)dotnet$/.test(exe);
}

async function findCandidates(options: DiscoveryOptions, me: number): Promise<Candidate[]> {
  const proc = options.proc ?? PROC;
  const dirs = options.tempDirs ?? defaultTempDirs();
  const [sockets, pids] = await Promise.all([listSockets(dirs), listPids(proc)]);
  const socketsByPid = new Map<number, SocketEntry[]>();
  for (const s of sockets) socketsByPid.set(s.pid, [...(socketsByPid.get(s.pid) ?? []), s]);

  const found = await Promise.all(pids.map(async (pid): Promise<Candidate | undefined> => {
    if (pid === process.pid && !socketsByPid.has(pid)) return undefined;
    const [st, uid] = await Promise.all([readStat(pid, proc), procOwner(pid, proc)]);
    if (st === undefined || uid === undefined) return undefined;
    // A socket counts only when its key is this process's start time: others are left over
    // from an earlier process that had the same pid.
    let socket = socketsByPid.get(pid)?.find((s) => s.key === st.startTime);
    const mine = uid === me || me === 0;
    const maps = mine ? await readMaps(pid, proc) : undefined;
    const runsDotnet = maps !== undefined && coreclrPathIn(maps) !== '';
    if (socket === undefined && runsDotnet) {
      // Its own TMPDIR may differ from ours.
      socket = await locateSocket(pid, { tempDirs: dirs, proc });
    }
    if (socket !== undefined || runsDotnet) return { pid, stat: st, uid, socket, maps };
    // Another user's process whose maps we may not read: a dotnet host is .NET.
    if (!mine && isDotnetHost(await readCmdline(pid, proc))) return { pid, stat: st, uid, socket: undefined, maps: undefined };
    return undefined;
  }));
  return found.filter((c): c is Candidate => c !== undefined);
}

/** The profiler the process was started with, when it is really loaded (or when its maps cannot tell). */
function startupProfiler(env: Map<string, string>, maps: string | undefined): { clsid: string; path: string | undefined } | undefined {
  const enabled = env.get('CORECLR_ENABLE_PROFILING');
  const clsid = env.get('CORECLR_PROFILER');
  if (enabled === undefined || !/^(0x)?0*1$/i.test(enabled.trim()) || clsid === undefined || clsid === '') return undefined;
  // The runtime takes the architecture's own variable first (profilinghelper.cpp, AttemptLoadProfilerForStartup).
  const path = (process.arch === 'arm64' ? env.get('CORECLR_PROFILER_PATH_ARM64') : undefined)
    || env.get('CORECLR_PROFILER_PATH_64') || env.get('CORECLR_PROFILER_PATH') || undefined;
  if (path !== undefined && maps !== undefined && !mapsInclude(maps, path)) return undefined;
  return { clsid, path };
}

function isClrscopeClsid(clsid: string): boolean {
  const bare = (id: string): string => id.replace(/[{}]/g, '').toLowerCase();
  return bare(clsid) === bare(PROFILER_CLSID);
}

/**
 * Whether the profiler in the process is clrscope's own: it publishes its marker while loaded,
 * or the process was started with it (the marker may have been removed, the profiler stays).
 */
export async function clrscopeProfilerIn(pid: number, options: Pick<DiscoveryOptions, 'clrscopeMarker' | 'proc'> = {}): Promise<boolean> {
  if (await exists((options.clrscopeMarker ?? clrscopeMarkerPath)(pid))) return true;
  const proc = options.proc ?? PROC;
  const [env, maps] = await Promise.all([readEnviron(pid, proc), readMaps(pid, proc)]);
  const started = env === undefined ? undefined : startupProfiler(env, maps);
  return started !== undefined && isClrscopeClsid(started.clsid);
}

function queryFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof DiagnosticsError) {
    switch (err.failure) {
      case 'timeout':
        return `its runtime did not answer within ${timeoutMs} ms (hung, stopped, or busy with another diagnostics client)`;
      case 'other-user':
        return 'its diagnostics socket belongs to another user';
      case 'exited':
      case 'closed':
        return 'its runtime does not accept diagnostics connections (it is exiting)';
      default:
        return err.message.replace(/^Process \d+ /, 'it ').replace(/\.$/, '');
    }
  }
  return `asking its runtime failed: ${err instanceof Error ? err.message : String(err)}`;
}

async function describe(c: Candidate, options: DiscoveryOptions, me: number): Promise<DotnetProcess | undefined> {
  const proc = options.proc ?? PROC;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  const [argv, env, owner, clrscopeLoaded] = await Promise.all([
    readCmdline(c.pid, proc),
    c.uid === me || me === 0 ? readEnviron(c.pid, proc) : Promise.resolve(undefined),
    userName(c.uid),
    exists((options.clrscopeMarker ?? clrscopeMarkerPath)(c.pid)),
  ]);
  const coreclr = c.maps === undefined ? '' : coreclrPathIn(c.maps);
  const entry: DotnetProcess = {
    pid: c.pid,
    name: appNameFromArgv(argv) ?? displayName(c.stat, argv, c.pid),
    commandLine: (argv ?? []).join(' '),
    runtimeVersion: runtimeVersionFromCoreclrPath(coreclr) ?? null,
    attachable: false,
    eventPipeOnly: false,
    reason: null,
    clrscopeLoaded,
    container: containerOf(c.pid, proc),
    uid: c.uid,
    user: owner,
    socketPath: c.socket?.path ?? null,
    os: null,
    arch: null,
  };
  const notAttachable = (reason: string): DotnetProcess => ({ ...entry, attachable: false, eventPipeOnly: false, reason });
  const eventPipeOnly = (reason: string): DotnetProcess => ({ ...entry, attachable: true, eventPipeOnly: true, reason });

  const otherUser = `it belongs to ${owner}, and only root may attach clrscope to another user's process`;
  // Root may: the profiler runs as that user, and the collector grants it its socket and library
  // (recording/container-attach.ts, otherOwner). Anyone else may not even ask its runtime.
  if (c.uid !== me && me !== 0) return notAttachable(otherUser);
  if (c.socket === undefined) {
    if (entry.container !== null && !rootReadable(c.pid, proc)) return notAttachable(ROOT_DENIED_CLAUSE);
    const setting = env === undefined ? undefined : diagnosticsSocketDisabledBy(env);
    if (setting !== undefined) return notAttachable(`it was started with ${setting}, so its runtime has no diagnostics socket`);
    return notAttachable('its runtime has no diagnostics socket where clrscope looked (another TMPDIR, or diagnostics turned off)');
  }
  if (c.maps !== undefined && muslIn(c.maps)) {
    return notAttachable('it runs on musl libc (an Alpine-based image), and clrscope\'s profiler is not built for musl yet');
  }

  try {
    const info = await processInfo2(c.pid, { socketPath: c.socket.path, timeoutMs });
    Object.assign(entry, {
      name: info.managedEntrypointAssemblyName || entry.name,
      commandLine: info.commandLine || entry.commandLine,
      runtimeVersion: info.clrProductVersion || entry.runtimeVersion,
      os: info.os,
      arch: info.arch,
    });
  } catch (err) {
    if (err instanceof DiagnosticsError && err.failure === 'runtime-error' && err.hresult === HRESULT.CORDIAGIPC_E_UNKNOWN_COMMAND) {
      // Older than .NET 6: ProcessInfo has no version, the rest is the same.
      try {
        const info = await processInfo(c.pid, { socketPath: c.socket.path, timeoutMs });
        Object.assign(entry, { commandLine: info.commandLine || entry.commandLine, os: info.os, arch: info.arch });
      } catch (err2) {
        return notAttachable(queryFailure(err2, timeoutMs));
      }
    } else {
      if (err instanceof DiagnosticsError && (err.failure === 'exited' || err.failure === 'closed') && !(await exists(`${proc}/${c.pid}`))) return undefined;
      return notAttachable(queryFailure(err, timeoutMs));
    }
  }

  // From here on the runtime answers, so an EventPipe session can record what the profiler cannot.
  if (clrscopeLoaded) return eventPipeOnly('it already has clrscope\'s profiler loaded');
  if (env !== undefined) {
    // DOTNET_EnableDiagnostics_Profiler=0 (profilersDisabledBy) is not looked at: it keeps
    // startup profilers out, but .NET 10 still loads one by attach (test/integration/attach.test.ts),
    // and a runtime that refuses gets the EventPipe fallback at attach time.
    const other = startupProfiler(env, c.maps);
    if (other !== undefined) {
      if (isClrscopeClsid(other.clsid)) {
        return eventPipeOnly('it was started with clrscope\'s profiler');
      }
      return eventPipeOnly(`it was started with another profiler (CORECLR_PROFILER=${other.clsid}), and a .NET process takes only one`);
    }
  }
  return { ...entry, attachable: true, eventPipeOnly: false, reason: null };
}

/** The .NET processes, sorted by pid. Never throws for one process's sake; a hung one costs `timeoutMs`. */
export async function listDotnetProcesses(options: DiscoveryOptions = {}): Promise<DotnetProcess[]> {
  const me = currentUid();
  const candidates = await findCandidates(options, me);
  const described = await mapLimited(candidates, options.concurrency ?? 16, (c) => describe(c, options, me).catch((err: unknown): DotnetProcess => ({
    pid: c.pid, name: c.stat.comm, commandLine: '', runtimeVersion: null, attachable: false, eventPipeOnly: false,
    reason: `clrscope could not examine it (${err instanceof Error ? err.message : String(err)})`,
    clrscopeLoaded: false, container: null, uid: c.uid, user: null, socketPath: c.socket?.path ?? null, os: null, arch: null,
  })));
  return described.filter((p): p is DotnetProcess => p !== undefined).sort((a, b) => a.pid - b.pid);
}

