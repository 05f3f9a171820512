// What Linux's /proc says about a process: its start time (the diagnostics socket's key), name,
// command line, owner, environment and whether it has a .NET runtime mapped. Every reader
// returns undefined instead of throwing when the process is gone or the file is not ours to read.

import { readFileSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';

export const PROC = '/proc';

/** The fields of /proc/PID/stat clrscope needs; the name (field 2) may hold spaces and parentheses. */
export interface ProcStat {
  /** Field 2 without its parentheses: the kernel's 15-character thread name. */
  comm: string;
  /** Field 22, the start time in clock ticks since boot, as decimal text (the socket key). */
  startTime: string;
}

/** Parses /proc/PID/stat. The name ends at the last ')' (a name can contain ') '), so fields count from there. */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const comm = text.slice(open + 1, close);
  // After ") " come field 3 (state), 4, 5, ...: field 22 is the 20th of them.
  const rest = text.slice(close + 2).trim().split(/\s+/);
  const startTime = rest[22 - 3];
  if (startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { comm, startTime };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

export async function readStat(pid: number, proc = PROC): Promise<ProcStat | undefined> {
  const text = await readText(`${proc}/${pid}/stat`);
  return text === undefined ? undefined : parseStat(text);
}

/**
 * The kernel's name of a process ("dotnet"), read at once: for a stream that names a process as
 * its first record arrives and cannot wait. '' when the process is gone or not ours.
 */
export function readCommSync(pid: number, proc = PROC): string {
  try {
    return parseStat(readFileSync(`${proc}/${pid}/stat`, 'utf8'))?.comm ?? '';
  } catch {
    return '';
  }
}

export async function processExists(pid: number, proc = PROC): Promise<boolean> {
  try {
    await stat(`${proc}/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/** argv as the process sees it now (NUL-separated); empty for kernel threads and zombies. */
export async function readCmdline(pid: number, proc = PROC): Promise<string[] | undefined> {
  const text = await readText(`${proc}/${pid}/cmdline`);
  if (text === undefined) return undefined;
  const parts = text.split('\0');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** The real user id (first number of the Uid: line of /proc/PID/status). */
export async function readUid(pid: number, proc = PROC): Promise<number | undefined> {
  const text = await readText(`${proc}/${pid}/status`);
  const m = text === undefined ? null : /^Uid:\s+(\d+)/m.exec(text);
  return m === null ? undefined : Number(m[1]);
}

/** The user and group a process reaches files as: the fourth (filesystem) ids of a status text's Uid: and Gid: lines. */
export function parseFileIds(status: string): { uid: number; gid: number } | undefined {
  const uid = /^Uid:\s+\d+\s+\d+\s+\d+\s+(\d+)/m.exec(status);
  const gid = /^Gid:\s+\d+\s+\d+\s+\d+\s+(\d+)/m.exec(status);
  return uid === null || gid === null ? undefined : { uid: Number(uid[1]), gid: Number(gid[1]) };
}

export async function readFileOwner(pid: number, proc = PROC): Promise<{ uid: number; gid: number } | undefined> {
  const text = await readText(`${proc}/${pid}/status`);
  return text === undefined ? undefined : parseFileIds(text);
}

/** How many OS threads the process has now (the Threads: line of /proc/PID/status). */
export async function readThreadCount(pid: number, proc = PROC): Promise<number | undefined> {
  const text = await readText(`${proc}/${pid}/status`);
  const m = text === undefined ? null : /^Threads:\s+(\d+)/m.exec(text);
  return m === null ? undefined : Number(m[1]);
}

/** The environment the process started with; undefined when it is not ours to read. */
export async function readEnviron(pid: number, proc = PROC): Promise<Map<string, string> | undefined> {
  const text = await readText(`${proc}/${pid}/environ`);
  if (text === undefined) return undefined;
  const env = new Map<string, string>();
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** /proc/PID/maps as text; undefined when it is not ours to read. */
export async function readMaps(pid: number, proc = PROC): Promise<string | undefined> {
  return readText(`${proc}/${pid}/maps`);
}

/**
 * The path of the libcoreclr.so in a maps text, '' when there is none. A single-file app links
 * the runtime into its executable and shows no libcoreclr.so.
 */
export function coreclrPathIn(maps: string): string {
  const at = maps.indexOf('/libcoreclr.so');
  if (at < 0) return '';
  const lineStart = maps.lastIndexOf('\n', at) + 1;
  const slash = maps.indexOf('/', lineStart);
  const lineEnd = maps.indexOf('\n', at);
  return maps.slice(slash, lineEnd < 0 ? undefined : lineEnd).trim();
}

/** The libcoreclr.so mapped into the process ('' for none), undefined when its maps are not ours to read. */
export async function readCoreclrPath(pid: number, proc = PROC): Promise<string | undefined> {
  const maps = await readMaps(pid, proc);
  return maps === undefined ? undefined : coreclrPathIn(maps);
}

/** Whether a maps text maps the file at `path` (an exact path column). */
export function mapsInclude(maps: string, path: string): boolean {
  return maps.split('\n').some((line) => line.endsWith(` ${path}`) || line.endsWith(`\t${path}`));
}

/** The shared-framework version in a libcoreclr.so path (…/Microsoft.NETCore.App/10.0.12/libcoreclr.so). */
export function runtimeVersionFromCoreclrPath(path: string): string | undefined {
  const m = /\/Microsoft\.NETCore\.App\/([^/]+)\/libcoreclr\.so$/.exec(path);
  return m === null ? undefined : m[1];
}

/** Every numeric entry of /proc. */
export async function listPids(proc = PROC): Promise<number[]> {
  try {
    return (await readdir(proc)).filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
}

/**
 * A .NET runtime reads its settings from DOTNET_x, else COMPlus_x, as hexadecimal numbers.
 * Returns the "NAME=value" that turns x off, or undefined.
 */
export function disabledBy(env: Map<string, string>, setting: string): string | undefined {
  for (const prefix of ['DOTNET_', 'COMPlus_']) {
    const name = `${prefix}${setting}`;
    const value = env.get(name);
    if (value === undefined || value.trim() === '') continue;
    return /^(0x)?0+$/i.test(value.trim()) ? `${name}=${value}` : undefined;
  }
  return undefined;
}

/** The setting that keeps the runtime from opening its diagnostics socket, if any. */
export function diagnosticsSocketDisabledBy(env: Map<string, string>): string | undefined {
  return disabledBy(env, 'EnableDiagnostics') ?? disabledBy(env, 'EnableDiagnostics_IPC');
}

/** The setting that keeps the runtime from loading profilers, if any. */
export function profilersDisabledBy(env: Map<string, string>): string | undefined {
  return disabledBy(env, 'EnableDiagnostics') ?? disabledBy(env, 'EnableDiagnostics_Profiler');
}

/** A short name for messages: the kernel's name, else the executable's base name, else "pid N". */
export function displayName(stat: ProcStat | undefined, argv: string[] | undefined, pid: number): string {
  if (stat !== undefined && stat.comm !== '') return stat.comm;
  const exe = argv?.[0];
  if (exe !== undefined && exe !== '') return exe.slice(exe.lastIndexOf('/') + 1);
  return `pid ${pid}`;
}

/** "Scenarios" for `dotnet …/Scenarios.dll …`: the app a dotnet host runs, when argv shows it. */
export function appNameFromArgv(argv: readonly string[] | undefined): string | undefined {
  if (argv === undefined || argv.length < 2 || !/(^|\/)dotnet$/.test(argv[0])) return undefined;
  const dll = argv.slice(1).find((a) => /\.dll$/i.test(a));
  if (dll === undefined) return undefined;
  return dll.slice(dll.lastIndexOf('/') + 1).replace(/\.dll$/i, '');
}
