// The .NET processes a launched program starts: what each is (read from /proc while it runs,
// since a short-lived child is gone by the end), and which are still running with clrscope's
// profiler loaded once the recording is over (MSBuild nodes and the compiler server outlive a
// build; they inherited the profiler's variables). `record` and the workstation say the same.

import { realpathSync } from 'node:fs';
import { appNameFromArgv, mapsInclude, processExists, readCmdline, readMaps, readStat } from '../diagnostics/proc.js';

export interface ProcessDescription {
  pid: number;
  /** The kernel's process name ("dotnet"), '' when unknown. */
  name: string;
  /** What it runs, for sentences: "dotnet Children.dll child alpha", '' when unknown. */
  commandLine: string;
  /** The app a dotnet host runs ("Children"), when its command line shows it. */
  app: string | undefined;
}

const MAX_COMMAND_CHARS = 120;

/** Reads what /proc says about a process now; fields stay empty when it is gone or not ours. */
export async function describeProcess(pid: number): Promise<ProcessDescription> {
  const [stat, argv] = await Promise.all([readStat(pid), readCmdline(pid)]);
  let commandLine = (argv ?? []).map((a, i) => (i === 0 ? a.slice(a.lastIndexOf('/') + 1) : a)).join(' ');
  if (commandLine.length > MAX_COMMAND_CHARS) commandLine = `${commandLine.slice(0, MAX_COMMAND_CHARS - 1)}…`;
  return { pid, name: stat?.comm ?? '', commandLine, app: appNameFromArgv(argv) };
}

/** Remembers a description per pid, read as soon as the pid is known. */
export class ProcessBook {
  private readonly pending = new Map<number, Promise<ProcessDescription>>();

  note(pid: number): void {
    if (!this.pending.has(pid)) this.pending.set(pid, describeProcess(pid));
  }

  async get(pid: number): Promise<ProcessDescription> {
    return (await this.pending.get(pid)) ?? { pid, name: '', commandLine: '', app: undefined };
  }
}

/** Of `pids`, those still running with the profiler library mapped. */
export async function stillProfiled(pids: readonly number[], libraryPath: string): Promise<number[]> {
  let real = libraryPath;
  try {
    real = realpathSync(libraryPath);
  } catch {
    // The library went away; the path as given is all there is to look for.
  }
  const alive: number[] = [];
  for (const pid of pids) {
    if (!(await processExists(pid))) continue;
    const maps = await readMaps(pid);
    if (maps !== undefined && (mapsInclude(maps, libraryPath) || mapsInclude(maps, real))) alive.push(pid);
  }
  return alive;
}

/** "1234 (dotnet MSBuild.dll /nodemode:1)": a process for a list in a sentence. */
export function processText(d: ProcessDescription): string {
  const what = d.commandLine !== '' ? d.commandLine : d.name;
  return what === '' ? String(d.pid) : `${d.pid} (${what})`;
}

/** Processes named in the lingering sentence; the rest are "…". */
const LINGERING_LISTED = 10;

/**
 * The sentence naming which of `pids` still run with the profiler loaded, or undefined when none
 * does. A runtime cannot unload a profiler it loaded at startup, and MSBuild nodes and the
 * compiler server outlive the build that started them; they are left alone (a node may be serving
 * another build). `recorded`: they were recorded (their recording has ended) rather than not at all.
 */
export async function lingeringSentence(pids: readonly number[], libraryPath: string, processes: ProcessBook, recorded: boolean): Promise<string | undefined> {
  const alive = await stillProfiled([...new Set(pids)], libraryPath);
  if (alive.length === 0) return undefined;
  const texts = await Promise.all(alive.slice(0, LINGERING_LISTED).map(async (pid) => processText(await processes.get(pid))));
  const why = recorded ? 'its recording has ended, but' : 'it is not recorded, but';
  return `Still running with clrscope's profiler loaded (${why} a runtime keeps a profiler until it exits): ${texts.join(', ')}${alive.length > LINGERING_LISTED ? ', …' : ''}. Stop them with kill PID, or for MSBuild nodes and the compiler server with dotnet build-server shutdown; a build started with MSBUILDDISABLENODEREUSE=1 and DOTNET_CLI_USE_MSBUILD_SERVER=0 (and -p:UseSharedCompilation=false) leaves none behind.`;
}
