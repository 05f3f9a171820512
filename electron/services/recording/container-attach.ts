// Attaching to a .NET process in a container (other mount and pid namespaces) from the host or a
// sidecar. The runtime resolves the library path of AttachProfiler in its own mount namespace,
// and the profiler connects to the collector's socket by a path it sees, so both are placed in
// the container's temp folder (where its diagnostics socket is), reached from here through
// /proc/PID/root: the collector's private folder holds its socket and a copy of the library, and
// goes at detach with everything in it. The profiler's HELLO says the pid it has inside; the
// collector turns it into the pid clrscope was given.

import { copyFile, chmod } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CollectorOptions } from '../collector/collector.js';
import { muslIn, muslSentence, readOnlySentence, rootDeniedSentence, rootReadable } from '../diagnostics/container-checks.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { hostPathOf, inContainer, insidePathOf, namespacesOf, type ProcessNamespaces } from '../diagnostics/namespaces.js';
import { PROC, readEnviron, readMaps } from '../diagnostics/proc.js';
import { locateSocket, tempDirOf } from '../diagnostics/socket-location.js';
import { UserError } from '../errors/user-error.js';

/** The collector options that make its socket reachable from the process `pid`, and its pid right. */
export async function collectorPlacement(pid: number, proc = PROC): Promise<Pick<CollectorOptions, 'directoryIn' | 'pidOf'>> {
  const ns = namespacesOf(pid, proc);
  if (!inContainer(ns)) return {};
  const pidOf = (helloPid: number): number => (helloPid === ns.nsPid ? pid : helloPid);
  if (ns.root === '') return { pidOf };
  if (!rootReadable(pid, proc)) throw new DiagnosticsError(rootDeniedSentence(pid), 'other-user', pid);
  const maps = await readMaps(pid, proc);
  if (maps !== undefined && muslIn(maps)) throw new UserError(muslSentence(pid));
  // Where its runtime made its diagnostics socket is a folder it can write to and reach; else its TMPDIR.
  const socket = await locateSocket(pid, { proc });
  const env = await readEnviron(pid, proc);
  const directoryIn = socket !== undefined ? dirname(socket.path) : hostPathOf(ns, tempDirOf(env?.get('TMPDIR')));
  return { directoryIn, pidOf };
}

/** Turns a failure to make the collector's folder in the container into the sentence that says what to mount. */
export function placementError(pid: number, directoryIn: string | undefined, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (directoryIn === undefined || (code !== 'EROFS' && code !== 'EACCES' && code !== 'EPERM')) return err;
  const ns = namespacesOf(pid);
  const inside = ns.root !== '' && directoryIn.startsWith(`${ns.root}/`) ? insidePathOf(ns, directoryIn) : directoryIn;
  if (code === 'EROFS') return new UserError(readOnlySentence(pid, inside));
  return new DiagnosticsError(rootDeniedSentence(pid), 'other-user', pid);
}

export interface TargetPaths {
  /** The collector's socket as the target names it. */
  socketPath: string;
  /** The profiler library as the target names it. */
  libraryPath: string;
}

/** The path (inside) of a mapped file named `name` in a maps text. */
export function loadedProfilerIn(maps: string | undefined, name: string): string | undefined {
  const line = maps?.split('\n').find((l) => l.endsWith(`/${name}`));
  return line === undefined ? undefined : line.slice(line.indexOf('/'));
}

function underRoot(ns: ProcessNamespaces, path: string): boolean {
  return ns.root !== '' && path.startsWith(`${ns.root}/`);
}

/**
 * The socket and library paths to give the runtime of `pid`: as they are when it shares our
 * files; else the socket's path inside, and a copy of the library in the collector's folder
 * (owner-only, removed with the folder when the collector closes).
 */
export async function targetPaths(pid: number, socketPath: string, libraryPath: string): Promise<TargetPaths> {
  const ns = namespacesOf(pid);
  if (!underRoot(ns, socketPath)) return { socketPath, libraryPath };
  // A clrscope profiler already in the process (a clrscope inside started it): naming its own file
  // gets the runtime's plain refusal, and so the EventPipe road. A second copy would not even load
  // (its static TLS block has no room in a running process), a refusal that says nothing.
  const loaded = loadedProfilerIn(await readMaps(pid), basename(libraryPath));
  if (loaded !== undefined) return { socketPath: insidePathOf(ns, socketPath), libraryPath: loaded };
  const copy = join(dirname(socketPath), basename(libraryPath));
  try {
    await copyFile(libraryPath, copy);
    await chmod(copy, 0o500);
  } catch (err) {
    throw placementError(pid, dirname(dirname(socketPath)), err);
  }
  return { socketPath: insidePathOf(ns, socketPath), libraryPath: insidePathOf(ns, copy) };
}
