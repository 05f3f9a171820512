// How a .NET process is told to load clrscope's profiler at startup, and where the library is.

import { accessSync, constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The profiler's CLSID; native-profiler/shim/clsid.h holds the same value. */
export const PROFILER_CLSID = '{03FD9B91-24D7-4053-BF50-EAA94807A91B}';

export interface ProfilerSettings {
  socketPath: string;
  /** The collector's secret when it listens on loopback TCP (Collector.secret). */
  secret?: string;
  intervalMs: number;
  wall: boolean;
  cpu: boolean;
}

const LIBRARY_FILE = process.platform === 'win32' ? 'clrscope.dll' : process.platform === 'darwin' ? 'libclrscope.dylib' : 'libclrscope.so';

/** The package root: two levels up from dist/electron/services/session (or from the source tree). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      accessSync(join(dir, 'package.json'), constants.R_OK);
      return dir;
    } catch {
      dir = dirname(dir);
    }
  }
  return process.cwd();
}

/** Where the built profiler library is expected; CLRSCOPE_PROFILER_PATH overrides. */
export function profilerLibraryPath(): string {
  const override = process.env.CLRSCOPE_PROFILER_PATH;
  if (override !== undefined && override !== '') return resolve(override);
  return join(packageRoot(), 'native-profiler', 'build', LIBRARY_FILE);
}

/**
 * Bitness-specific path variables win over CORECLR_PROFILER_PATH; a parent environment that
 * carries one (another profiler's) would load that library instead of ours.
 */
export const SHADOWING_PATH_VARIABLES = ['CORECLR_PROFILER_PATH_32', 'CORECLR_PROFILER_PATH_64', 'CORECLR_PROFILER_PATH_ARM32', 'CORECLR_PROFILER_PATH_ARM64'];

/** Which event samples the profiler records (README, "Allocations, locks and exceptions"); the profiler's defaults: exceptions and locks on, allocations off. */
export interface EventSwitches {
  exceptions: boolean;
  locks: boolean;
  alloc: boolean;
  /** Async call stacks (README, "Async stacks"): off unless asked for, for its cost at high await rates. */
  async?: boolean;
  /** Where async call stacks come from when on (DEFAULT_ASYNC_SOURCE when not said). */
  asyncSource?: AsyncSource;
  /** HTTP requests (README, "Requests"): off unless asked for. */
  requests?: boolean;
  /** With requests: the rate budget (requests a second), or all of them; absent, the profiler's default budget. */
  requestsRate?: RequestsRate;
}

/**
 * How many requests a second the profiler's DiagnosticSource bridge may hear before it listens
 * only part of each second (ASP.NET Core pays for every request heard; PROTOCOL.md,
 * REQUEST_WINDOW): a whole number from 1 to 1,000,000, or `all`, always listening.
 */
export type RequestsRate = number | 'all';

/**
 * Where async call stacks come from (native-profiler/ASYNC-STACKS-STUDY.md): `heap` reads each
 * sample's chain from the heap when it is taken (no TPL events; a probe on each resumption), `events`
 * follows the TPL events of every await (also gives suspended operations' time and the
 * "Async operations" count, at a higher cost).
 */
export type AsyncSource = 'heap' | 'events';
export const ASYNC_SOURCES: readonly AsyncSource[] = ['heap', 'events'];
/** The source `--async` uses unless told (scripts/bench/RESULTS.md, "Async stacks read from the heap"). */
export const DEFAULT_ASYNC_SOURCE: AsyncSource = 'events';

/**
 * Why an attached recording with async stacks from the heap leaves clrscope's library in the
 * process: the box probe's ReJIT cannot be undone, so the runtime refuses the detach; the probe
 * itself does nothing once the recording ends (native-profiler/core/box_stack.h).
 */
export const HEAP_ASYNC_STAYS_LOADED = "clrscope's library stays loaded in it: async stacks from the heap rewrote a runtime method, which the runtime cannot undo (its probe does nothing now).";

/** Whether these switches read async stacks from the heap (the attach cannot detach). */
export function asyncFromHeap(s: EventSwitches | undefined): boolean {
  return s?.async === true && (s.asyncSource ?? DEFAULT_ASYNC_SOURCE) === 'heap';
}

/** CLRSCOPE_ASYNC's value (and the client data's async=) for a source. */
function asyncValue(s: EventSwitches): string {
  return (s.asyncSource ?? DEFAULT_ASYNC_SOURCE) === 'heap' ? 'heap' : '1';
}

/** The rate budget's text for the profiler, undefined when it keeps its default (no requests, or none given). */
function requestsRateValue(s: EventSwitches): string | undefined {
  return s.requests === true && s.requestsRate !== undefined ? String(s.requestsRate) : undefined;
}

/** The variables that carry EventSwitches to a profiler loaded at startup (core/profiler_config.h). */
export function eventEnvironment(s: EventSwitches): Record<string, string> {
  const rate = requestsRateValue(s);
  return {
    CLRSCOPE_EXCEPTIONS: s.exceptions ? '1' : '0', CLRSCOPE_LOCKS: s.locks ? '1' : '0', CLRSCOPE_ALLOC: s.alloc ? '1' : '0', ...(s.async === true ? { CLRSCOPE_ASYNC: asyncValue(s) } : {}),
    ...(s.requests === true ? { CLRSCOPE_REQUESTS: '1' } : {}), ...(rate === undefined ? {} : { CLRSCOPE_REQUESTS_RATE: rate }),
  };
}

/** The same as attach client data lines (parse_client_data). */
export function eventClientData(s: EventSwitches): string {
  const rate = requestsRateValue(s);
  return `exceptions=${s.exceptions ? 1 : 0}\nlocks=${s.locks ? 1 : 0}\nalloc=${s.alloc ? 1 : 0}\n${s.async === true ? `async=${asyncValue(s)}\n` : ''}${s.requests === true ? 'requests=1\n' : ''}${rate === undefined ? '' : `requests_rate=${rate}\n`}`;
}

/** The environment variables that make a starting .NET runtime load the profiler and stream to us. */
export function profilerEnvironment(settings: ProfilerSettings, libraryPath: string): Record<string, string> {
  return {
    CORECLR_ENABLE_PROFILING: '1',
    CORECLR_PROFILER: PROFILER_CLSID,
    CORECLR_PROFILER_PATH: libraryPath,
    CLRSCOPE_SOCKET: settings.socketPath,
    ...(settings.secret === undefined ? {} : { CLRSCOPE_SECRET: settings.secret }),
    CLRSCOPE_INTERVAL_US: String(Math.round(settings.intervalMs * 1000)),
    CLRSCOPE_WALL: settings.wall ? '1' : '0',
    CLRSCOPE_CPU: settings.cpu ? '1' : '0',
  };
}

/** The child's environment: ours on top of the parent's, minus variables that would shadow ours. */
export function childEnvironment(base: NodeJS.ProcessEnv, settings: ProfilerSettings, libraryPath: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...profilerEnvironment(settings, libraryPath) };
  for (const name of SHADOWING_PATH_VARIABLES) delete env[name];
  return env;
}

export { packageRoot };
