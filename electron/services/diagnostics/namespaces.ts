// Which container a process is in, as far as clrscope must know to reach it: its own pid (the
// innermost of /proc/PID/status's NSpid list, what its runtime calls itself in socket and shared
// memory names), and where its files are from here (/proc/PID/root when its mount namespace is
// not ours: the container's /tmp and /dev/shm are reachable by path through it, Unix sockets
// included). The cgroup path and the namespace inodes say which container, for people.
//
// Synchronous on purpose: the counters block is opened from synchronous code (the poller's tick),
// and these are a handful of small /proc reads.

import { readFileSync, readlinkSync } from 'node:fs';
import { PROC, parseFileIds } from './proc.js';

export interface ProcessNamespaces {
  /** The pid as this clrscope sees it (in its /proc). */
  pid: number;
  /** The pid the process has in its own pid namespace (getpid() in it); `pid` when it shares ours. */
  nsPid: number;
  /** '' when the process sees the same files as we do, else `/proc/PID/root`: prefix an in-container path with it. */
  root: string;
  /** Another pid namespace than ours. */
  otherPidNs: boolean;
  /** Another mount namespace than ours. */
  otherMountNs: boolean;
  /** "mnt:[4026532712]", undefined when not ours to read. */
  mountNs: string | undefined;
  pidNs: string | undefined;
  /** The cgroup v2 path (or the first v1 one), e.g. /system.slice/docker-<id>.scope. */
  cgroup: string | undefined;
  /** A container runtime's id found in the cgroup path (64 hex digits), else undefined. */
  containerId: string | undefined;
  /** False when its namespaces are closed to us (another user's, or we may not ptrace it): the rest then says "shared". */
  readable: boolean;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function link(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** The pids of the NSpid line, outermost first; undefined on kernels before 4.1 (no such line). */
export function parseNsPids(status: string): number[] | undefined {
  const m = /^NSpid:\s+([\d\s]+)$/m.exec(status);
  if (m === null) return undefined;
  return m[1].trim().split(/\s+/).map(Number);
}

/** The cgroup v2 line's path ("0::/path"), else the first hierarchy's. */
export function parseCgroup(text: string): string | undefined {
  const lines = text.split('\n').filter((l) => l !== '');
  const v2 = lines.find((l) => l.startsWith('0::'));
  const line = v2 ?? lines[0];
  if (line === undefined) return undefined;
  const path = line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
  return path === '' ? undefined : path;
}

/** docker-<id>.scope, libpod-<id>.scope, cri-containerd-<id>.scope, /docker/<id>, /kubepods/.../<id>: the last 64-hex-digit id. */
export function containerIdIn(cgroup: string | undefined): string | undefined {
  if (cgroup === undefined) return undefined;
  const all = [...cgroup.matchAll(/(?:^|[/-])([0-9a-f]{64})(?:\.scope)?(?=\/|$)/g)];
  return all.length === 0 ? undefined : all[all.length - 1][1];
}

/** What `pid`'s namespaces are, seen from this process; every unreadable part counts as shared with ours. */
export function namespacesOf(pid: number, proc = PROC): ProcessNamespaces {
  const status = readText(`${proc}/${pid}/status`);
  const nsPids = status === undefined ? undefined : parseNsPids(status);
  const nsPid = nsPids?.[nsPids.length - 1] ?? pid;
  const mountNs = link(`${proc}/${pid}/ns/mnt`);
  const pidNs = link(`${proc}/${pid}/ns/pid`);
  const ownMount = link(`${proc}/self/ns/mnt`);
  const ownPid = link(`${proc}/self/ns/pid`);
  const otherMountNs = mountNs !== undefined && ownMount !== undefined && mountNs !== ownMount;
  // NSpid lists more than one pid exactly when the process is in a namespace below ours.
  const otherPidNs = (nsPids !== undefined && nsPids.length > 1) || (pidNs !== undefined && ownPid !== undefined && pidNs !== ownPid);
  const cgroupText = readText(`${proc}/${pid}/cgroup`);
  const cgroup = cgroupText === undefined ? undefined : parseCgroup(cgroupText);
  return {
    pid,
    nsPid,
    root: otherMountNs ? `${proc}/${pid}/root` : '',
    otherPidNs,
    otherMountNs,
    mountNs,
    pidNs,
    cgroup,
    containerId: containerIdIn(cgroup),
    readable: mountNs !== undefined,
  };
}

/** Whether clrscope must reach the process through its namespaces at all. */
export function inContainer(ns: ProcessNamespaces): boolean {
  return ns.otherMountNs || ns.otherPidNs;
}

/** A path inside the process's filesystem as this clrscope reaches it. */
export function hostPathOf(ns: ProcessNamespaces, inside: string): string {
  return `${ns.root}${inside}`;
}

/** A path this clrscope reaches under the process's root, as the process itself names it. */
export function insidePathOf(ns: ProcessNamespaces, host: string): string {
  if (ns.root === '') return host;
  if (!host.startsWith(`${ns.root}/`)) throw new Error(`${host} is not under ${ns.root}`);
  return host.slice(ns.root.length);
}

/** A short name of the container for tables: the runtime's id (12 digits, as docker ps shows it), else the mount namespace's inode. */
export function containerLabel(ns: ProcessNamespaces): string | undefined {
  if (!inContainer(ns)) return undefined;
  if (ns.containerId !== undefined) return ns.containerId.slice(0, 12);
  const inode = /\[(\d+)\]/.exec(ns.mountNs ?? ns.pidNs ?? '')?.[1];
  return inode === undefined ? 'another namespace' : `${ns.otherMountNs ? 'mnt' : 'pid'}:${inode}`;
}

/**
 * The user whose profiler would make `pid`'s counters block, when it is not ours and we are root
 * (another user's process, a container's app user): the filesystem uid of its status. Undefined
 * otherwise, so the block must be ours.
 */
export function blockOwnerOf(pid: number, proc = PROC): number | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return parseFileIds(readText(`${proc}/${pid}/status`) ?? '')?.uid;
}

/** clrscope's profiler's counters block of the process (native-profiler/linux/shared_memory_linux.cpp names it by the pid it has). */
export function counterBlockPath(pid: number, proc = PROC): string {
  const ns = namespacesOf(pid, proc);
  return hostPathOf(ns, `/dev/shm/clrscope-${ns.nsPid}`);
}
