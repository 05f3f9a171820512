// Where a .NET process's diagnostics socket is. The runtime creates
// $TMPDIR/dotnet-diagnostic-{pid}-{key}-socket (TMPDIR of the target, /tmp when unset or empty;
// key = the process start time in clock ticks, field 22 of /proc/{pid}/stat) with mode 0600.
// Source: dotnet/runtime src/coreclr/pal/src/thread/process.cpp (PAL_GetTransportName,
// GetProcessIdDisambiguationKey) and src/native/eventpipe/ds-ipc-pal-socket.c.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { hostPathOf, namespacesOf } from './namespaces.js';
import { PROC, readEnviron, readStat } from './proc.js';

const SOCKET_NAME = /^dotnet-diagnostic-(\d+)-(\d+)-socket$/;

export interface SocketEntry {
  /** listSockets: the pid in the name (the process's own, in its pid namespace); locateSocket: the pid asked about. */
  pid: number;
  /** The start-time key in the name, as decimal text. */
  key: string;
  path: string;
  /** Owner of the socket file. */
  uid: number;
}

export function parseSocketName(name: string): { pid: number; key: string } | undefined {
  const m = SOCKET_NAME.exec(name);
  return m === null ? undefined : { pid: Number(m[1]), key: m[2] };
}

export function socketName(pid: number, key: string): string {
  return `dotnet-diagnostic-${pid}-${key}-socket`;
}

/**
 * On Windows the runtime listens on the named pipe \\.\pipe\dotnet-diagnostic-{pid} (no start-time
 * key: a pipe vanishes with its process). Node's net module connects to a pipe given as a path,
 * so the same exchange() works with it. Source: dotnet/runtime src/native/eventpipe/ds-ipc-pal-namedpipe.c.
 */
export function windowsPipeName(pid: number): string {
  return `\\\\.\\pipe\\dotnet-diagnostic-${pid}`;
}

/** The runtime's temp directory for a TMPDIR value: it when set and non-empty, else /tmp. */
export function tempDirOf(tmpdir: string | undefined): string {
  if (tmpdir === undefined || tmpdir === '') return '/tmp';
  return tmpdir.length > 1 && tmpdir.endsWith('/') ? tmpdir.slice(0, -1) : tmpdir;
}

/** Ours and /tmp, without duplicates: where processes started from this session put their sockets. */
export function defaultTempDirs(): string[] {
  return [...new Set([tempDirOf(process.env.TMPDIR), '/tmp'])];
}

/** Every dotnet-diagnostic-*-socket in the directories (unreadable directories are skipped). */
export async function listSockets(dirs: readonly string[]): Promise<SocketEntry[]> {
  const out: SocketEntry[] = [];
  const seen = new Set<string>();
  await Promise.all(dirs.map(async (dir) => {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    await Promise.all(names.map(async (name) => {
      const parsed = parseSocketName(name);
      if (parsed === undefined) return;
      const path = join(dir, name);
      try {
        const st = await stat(path);
        if (!st.isSocket() || seen.has(path)) return;
        seen.add(path);
        out.push({ ...parsed, path, uid: st.uid });
      } catch {
        // removed meanwhile
      }
    }));
  }));
  return out.sort((a, b) => a.pid - b.pid || a.path.localeCompare(b.path));
}

export interface LocateOptions {
  /** Directories to look in besides the target's own TMPDIR (default: ours and /tmp). */
  tempDirs?: readonly string[];
  proc?: string;
}

/**
 * The directories a process's socket may be in: its own TMPDIR first (when we may read its
 * environment), then ours and /tmp. For a process in another mount namespace (a container) its
 * TMPDIR and /tmp as seen through /proc/PID/root, and not ours: they are other directories.
 */
export async function candidateDirs(pid: number, options: LocateOptions = {}): Promise<string[]> {
  const proc = options.proc ?? PROC;
  const env = await readEnviron(pid, proc);
  const own = env === undefined ? [] : [tempDirOf(env.get('TMPDIR'))];
  const ns = namespacesOf(pid, proc);
  if (ns.root !== '') return [...new Set([...own, '/tmp'])].map((dir) => hostPathOf(ns, dir));
  return [...new Set([...own, ...(options.tempDirs ?? defaultTempDirs())])];
}

/**
 * The socket of the live process `pid`: the name made of its start time. Only when /proc does
 * not tell the start time, the newest socket carrying its pid. Undefined when there is none (a
 * socket with the pid but another start time belongs to an earlier process with the same pid).
 */
export async function locateSocket(pid: number, options: LocateOptions = {}): Promise<SocketEntry | undefined> {
  const dirs = await candidateDirs(pid, options);
  const proc = options.proc ?? PROC;
  const st = await readStat(pid, proc);
  // The runtime names its socket with the pid it has in its own pid namespace.
  const own = namespacesOf(pid, proc).nsPid;
  if (st !== undefined) {
    for (const dir of dirs) {
      const path = join(dir, socketName(own, st.startTime));
      try {
        const s = await stat(path);
        if (s.isSocket()) return { pid, key: st.startTime, path, uid: s.uid };
      } catch {
        // not here
      }
    }
    return undefined;
  }
  const others = (await listSockets(dirs)).filter((s) => s.pid === own);
  const withTimes = await Promise.all(others.map(async (s) => ({ s, mtime: (await stat(s.path).catch(() => undefined))?.mtimeMs ?? 0 })));
  withTimes.sort((a, b) => b.mtime - a.mtime);
  return withTimes[0]?.s;
}
