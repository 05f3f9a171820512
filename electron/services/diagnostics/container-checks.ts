// What keeps clrscope from profiling a process in a container, said in one sentence each: no
// permission to look into its filesystem (/proc/PID/root needs the right to ptrace it), a
// read-only filesystem where the profiler's library cannot be placed, and a musl C library
// (Alpine-based images), which clrscope's glibc-built profiler cannot be loaded into.

import { readdirSync } from 'node:fs';
import { PROC } from './proc.js';

/** Whether the maps text shows the musl dynamic loader (/lib/ld-musl-x86_64.so.1). */
export function muslIn(maps: string): boolean {
  return /\/ld-musl-[^/\s]+\.so/.test(maps);
}

/** Whether this clrscope may read the process's root directory (as root on the host, or with the right to ptrace it). */
export function rootReadable(pid: number, proc = PROC): boolean {
  try {
    readdirSync(`${proc}/${pid}/root/`);
    return true;
  } catch {
    return false;
  }
}

export const ROOT_DENIED_CLAUSE = 'clrscope may not look into its container (/proc/PID/root needs the right to ptrace it): run clrscope as root on the host, or in a sidecar that shares its pid namespace with CAP_SYS_PTRACE';

export function rootDeniedSentence(pid: number): string {
  return `Process ${pid} is closed to clrscope: it may not look into its namespaces and files (/proc/${pid}/root needs the right to ptrace it), so run clrscope as root on the host, or in a sidecar that shares its pid namespace with CAP_SYS_PTRACE.`;
}

export function muslSentence(pid: number): string {
  return `Process ${pid} runs on musl libc (an Alpine-based image), and clrscope's profiler is built for glibc only: musl images are not supported yet, use a Debian- or Ubuntu-based image of the app.`;
}

export function readOnlySentence(pid: number, dir: string): string {
  return `Process ${pid}'s ${dir} is read-only, so clrscope cannot place its profiler library in the container: mount a writable tmpfs there (docker run --tmpfs ${dir}, or a Kubernetes emptyDir volume at ${dir}).`;
}
