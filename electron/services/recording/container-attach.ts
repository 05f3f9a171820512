// Attaching to a .NET process in a container (other mount and pid namespaces) from the host or a
// sidecar. The runtime resolves the library path of AttachProfiler in its own mount namespace,
// and the profiler connects to the collector's socket by a path it sees, so both are placed in
// the container's temp folder (where its diagnostics socket is), reached from here through
// /proc/PID/root: the collector's private folder holds its socket and a copy of the library, and
// goes at detach with everything in it. The profiler's HELLO says the pid it has inside; the
// collector turns it into the pid clrscope was given. Root attaching to another user's process (a
// container's app user) grants that user what its profiler must reach (otherOwner).

import { copyFile, chmod, chown } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CollectorOptions } from '../collector/collector.js';
import type { FileOwner } from '../collector/grant-folder.js';
import { muslIn, muslSentence, readOnlySentence, rootDeniedSentence, rootReadable } from '../diagnostics/container-checks.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { hostPathOf, inContainer, insidePathOf, namespacesOf, type ProcessNamespaces } from '../diagnostics/namespaces.js';
import { PROC, readEnviron, readFileOwner, readMaps } from '../diagnostics/proc.js';
import { currentUid } from '../diagnostics/users.js';
import { locateSocket, tempDirOf } from '../diagnostics/socket-location.js';
import { UserError } from '../errors/user-error.js';

/**
 * The user the process `pid` reaches files as, when root attaches to another user's process (a
 * container's app user, uid 1654 in Microsoft's images): its profiler runs as that user, so what
 * it must reach is granted to it. Undefined when it is our own user.
 */
export async function otherOwner(pid: number, proc = PROC): Promise<FileOwner | undefined> {
  const me = currentUid();
  if (me !== 0 || process.platform === 'win32') return undefined;
  const owner = await readFileOwner(pid, proc);
  return owner === undefined || owner.uid === me ? undefined : owner;
}

/** The collector options that make its socket reachable from the process `pid`, and its pid right. */
export async function collectorPlacement(pid: number, proc = PROC): Promise<Pick<CollectorOptions, 'directoryIn' | 'pidOf' | 'grantTo'>> {
  const owner = await otherOwner(pid, proc);
  const grant = owner === undefined ? {} : { grantTo: owner };
  const ns = namespacesOf(pid, proc);
  if (!inContainer(ns)) {
    if (owner === undefined) return grant;
    // Our temp folder may be closed to that user (a TMPDIR of root's own); the folder its runtime
    // made its diagnostics socket in is one it reaches.
    const socket = await locateSocket(pid, { proc });
    return socket === undefined ? grant : { directoryIn: dirname(socket.path), ...grant };
  }
  const pidOf = (helloPid: number): number => (helloPid === ns.nsPid ? pid : helloPid);
  if (ns.root === '') return { pidOf, ...grant };
  if (!rootReadable(pid, proc)) throw new DiagnosticsError(rootDeniedSentence(pid), 'other-user', pid);
  const maps = await readMaps(pid, proc);
  if (maps !== undefined && muslIn(maps)) throw new UserError(muslSentence(pid));
  // Where its runtime made its diagnostics socket is a folder it can write to and reach; else its TMPDIR.
  const socket = await locateSocket(pid, { proc });
  const env = await readEnviron(pid, proc);
  const directoryIn = socket !== undefined ? dirname(socket.path) : hostPathOf(ns, tempDirOf(env?.get('TMPDIR')));
  return { directoryIn, pidOf, ...grant };
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
 * files and our user; else the socket's path as it names it, and a copy of the library in the
 * collector's folder (readable by the process's user only, removed with the folder when the
 * collector closes). Another user may not be able to read our copy where it lies (a checkout in
 * root's 0700 temp folder).
 */
export async function targetPaths(pid: number, socketPath: string, libraryPath: string): Promise<TargetPaths> {
  const ns = namespacesOf(pid);
  const contained = underRoot(ns, socketPath);
  const owner = await otherOwner(pid);
  if (!contained && owner === undefined) return { socketPath, libraryPath };
  const named = (path: string): string => (contained ? insidePathOf(ns, path) : path);
  // A clrscope profiler already in the process (a clrscope inside started it): naming its own file
  // gets the runtime's plain refusal, and so the EventPipe road. A second copy would not even load
  // (its static TLS block has no room in a running process), a refusal that says nothing.
  const loaded = contained ? loadedProfilerIn(await readMaps(pid), basename(libraryPath)) : undefined;
  if (loaded !== undefined) return { socketPath: named(socketPath), libraryPath: loaded };
  const copy = join(dirname(socketPath), basename(libraryPath));
  try {
    await copyFile(libraryPath, copy);
    await chmod(copy, 0o500);
    if (owner !== undefined) await chown(copy, owner.uid, owner.gid);
  } catch (err) {
    throw placementError(pid, dirname(dirname(socketPath)), err);
  }
  return { socketPath: named(socketPath), libraryPath: named(copy) };
}
