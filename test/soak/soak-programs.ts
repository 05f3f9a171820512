// The programs of the harmlessness soak (issue 23): real programs nobody here wrote (PowerShell,
// ilspycmd, csharpier, the SDK's `dotnet build` and `dotnet test`) and two of ours built on real
// libraries (an ASP.NET Core service under load, an EF Core + SQLite program). Each says how to
// start it, when a profiler can be attached to it, how to drive it, what of its output must not
// change (normalized: timings, ports and the run's own folder taken out) and which files it writes.
//
// Installs and builds are scripts/soak/setup-soak.sh's (called by scripts/setup.sh); this file
// only finds them.

import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../integration/support/paths.js';
import { driveLoad, LOAD_REQUESTS } from './soak-load.js';

export const SOAK_DIR = join(ROOT, 'test', 'soak');
/** Where setup-soak.sh installs the .NET tools (`dotnet tool install --tool-path`). */
export const TOOLS_DIR = join(SOAK_DIR, '.tools');
/** Inputs made once and reused by every run (csharpier's source tree). */
export const CACHE_DIR = join(SOAK_DIR, '.cache');

export const POWERSHELL_VERSION = '7.6.10';
export const ILSPYCMD_VERSION = '9.1.0.7988';
export const CSHARPIER_VERSION = '1.4.0';

/** A tool's program: the .dll under DIR/.store/NAME/VERSION/... (the tool's command is only a launcher). */
export function toolDll(name: string, version: string, relative: string): string {
  const path = join(TOOLS_DIR, '.store', name, version, name, version, 'tools', relative);
  if (!existsSync(path)) throw new Error(`${path} is missing: run bash scripts/soak/setup-soak.sh (or scripts/setup.sh)`);
  return path;
}

export const pwshDll = (): string => toolDll('powershell', POWERSHELL_VERSION, 'net10.0/any/unix/pwsh.dll');
export const ilspyDll = (): string => toolDll('ilspycmd', ILSPYCMD_VERSION, 'net8.0/any/ilspycmd.dll');
export const csharpierDll = (): string => toolDll('csharpier', CSHARPIER_VERSION, 'net10.0/any/CSharpier.dll');

export function soakProgramDll(name: 'SoakWeb' | 'SoakData'): string {
  const path = join(SOAK_DIR, name, 'bin', 'out', `${name}.dll`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run bash scripts/soak/setup-soak.sh (or scripts/setup.sh)`);
  return path;
}

/** The shared framework's System.Private.CoreLib, what ilspycmd decompiles. */
export function coreLib(): string {
  const shared = join(process.env.DOTNET_ROOT ?? '/usr/share/dotnet', 'shared', 'Microsoft.NETCore.App');
  const versions = existsSync(shared) ? readdirSync(shared).filter((v) => v.startsWith('10.')).sort() : [];
  const v = versions.at(-1);
  if (v === undefined) throw new Error(`no .NET 10 runtime under ${shared}`);
  return join(shared, v, 'System.Private.CoreLib.dll');
}

export interface Invocation {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunContext {
  /** A fresh folder of this run's own (outputs, databases, copies of inputs). */
  dir: string;
}

export interface ProgramSpec {
  name: string;
  /** One line for the report: what the program does here. */
  what: string;
  /** Makes the run's inputs in ctx.dir and says how to start the program. */
  prepare(ctx: RunContext): Invocation;
  /** Launched under `record --children` (programs that start .NET children of their own). */
  children: boolean;
  /** The program waits this long before its work when SOAK_START_DELAY_MS says so (all modes, so they stay comparable); its wall time is reported without it. */
  startDelayMs?: number;
  /** When an attach may start: once the runtime's diagnostics socket exists, or once stdout has this line. */
  attachAfter?: RegExp;
  /** Drives the program while it runs (a load generator); what it returns is compared as part of the output. */
  drive?(stdout: () => string, ctx: RunContext, started?: () => void): Promise<string>;
  /** What of stdout must not change. */
  normalize(stdout: string, ctx: RunContext): string;
  /** Folders or files whose contents must not change (hashed). */
  outputs?(ctx: RunContext): string[];
  /** In the `detach` mode, record detaches after this many seconds (well before the program's end). */
  detachAfterS: number;
  /** Longest a run may take before it counts as a hang. */
  timeoutMs: number;
}

/** Timings, the run's folder and the tools' folder taken out. */
export function commonNormalize(text: string, ctx: RunContext): string {
  return text
    .replaceAll(ctx.dir, '<RUN>')
    .replaceAll(TOOLS_DIR, '<TOOLS>')
    .replace(/\b\d+(\.\d+)?\s?(ms|s|sec|seconds)\b/g, '<TIME>')
    .replace(/\b\d\d:\d\d:\d\d(\.\d+)?\b/g, '<TIME>')
    .replace(/\r\n/g, '\n')
    .trimEnd();
}

/** Lines sorted: for build tools whose parallel nodes print in any order. */
const sortedLines = (text: string): string => text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '').sort().join('\n');

const noTelemetry: NodeJS.ProcessEnv = {
  DOTNET_CLI_TELEMETRY_OPTOUT: '1',
  DOTNET_NOLOGO: '1',
  DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1',
  DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE: '1',
  // No build server or node may outlive a run (each would keep its profiler loaded).
  MSBUILDDISABLENODEREUSE: '1',
  DOTNET_CLI_USE_MSBUILD_SERVER: '0',
  UseSharedCompilation: 'false',
};

export const SOLUTION_DIR = join(SOAK_DIR, 'SoakSolution');
/** The assemblies `dotnet build` writes: deterministic, so the same bytes every build. */
const solutionOutputs = (): string[] => ['Geometry', 'Geometry.App', 'Geometry.Tests'].map((p) => join(SOLUTION_DIR, p, 'bin', 'Debug', 'net10.0', `${p}.dll`));

/** csharpier's input: ilspycmd's C# of System.Private.CoreLib, made once (see ensureCsharpierInput). */
export const CSHARPIER_INPUT = join(CACHE_DIR, 'corelib-source');

export const PROGRAMS: readonly ProgramSpec[] = [
  {
    name: 'pwsh',
    what: `PowerShell ${POWERSHELL_VERSION} (dotnet tool) running test/soak/soak.ps1: classes, closures, the pipeline over 20,000 objects, CSV/JSON, regex, 14 kinds of exception, thread jobs, ForEach-Object -Parallel, a background job (a child process)`,
    prepare: (ctx) => ({
      command: 'dotnet',
      args: [pwshDll(), '-NoProfile', '-NonInteractive', '-File', join(SOAK_DIR, 'soak.ps1'), '-OutDir', join(ctx.dir, 'out')],
      cwd: ctx.dir,
      env: { POWERSHELL_TELEMETRY_OPTOUT: '1', POWERSHELL_UPDATECHECK: 'Off' },
    }),
    children: true,
    startDelayMs: 2000,
    normalize: commonNormalize,
    outputs: (ctx) => [join(ctx.dir, 'out')],
    detachAfterS: 6,
    timeoutMs: 300_000,
  },
  {
    name: 'ilspycmd',
    what: `ilspycmd ${ILSPYCMD_VERSION} decompiling System.Private.CoreLib into a project (server GC, parallel)`,
    prepare: (ctx) => ({
      command: 'dotnet',
      // A net8.0 tool: rolled forward onto the .NET 10 runtime, the one installed here.
      args: ['--roll-forward', 'Major', ilspyDll(), '--disable-updatecheck', '-p', '-o', join(ctx.dir, 'out'), coreLib()],
      cwd: ctx.dir,
    }),
    children: false,
    normalize: commonNormalize,
    outputs: (ctx) => [join(ctx.dir, 'out')],
    detachAfterS: 20,
    timeoutMs: 900_000,
  },
  {
    name: 'csharpier',
    what: `csharpier ${CSHARPIER_VERSION} formatting ilspycmd's C# of System.Private.CoreLib (1,750 files, 17 MB)`,
    prepare: (ctx) => {
      if (!existsSync(join(CSHARPIER_INPUT, '.csharpierignore'))) throw new Error(`${CSHARPIER_INPUT} is missing: run the soak (scripts/soak.mjs) with ilspycmd once, it makes it`);
      cpSync(CSHARPIER_INPUT, join(ctx.dir, 'src'), { recursive: true });
      return { command: 'dotnet', args: [csharpierDll(), 'format', '--no-cache', '.'], cwd: join(ctx.dir, 'src') };
    },
    children: false,
    normalize: (stdout, ctx) => commonNormalize(stdout, ctx).replace(/Formatted (\d+) files in <TIME>\./, 'Formatted $1 files.'),
    outputs: (ctx) => [join(ctx.dir, 'src')],
    detachAfterS: 10,
    timeoutMs: 600_000,
  },
  {
    name: 'aspnet',
    what: `an ASP.NET Core minimal API (test/soak/SoakWeb) under ${LOAD_REQUESTS.toLocaleString('en-US')} requests from 8 connections on 127.0.0.1: JSON in and out, hashing, regex, async chains with a fan-out, 5 kinds of exception turned into responses by a middleware (a null dereference among them)`,
    prepare: (ctx) => ({ command: 'dotnet', args: [soakProgramDll('SoakWeb')], cwd: ctx.dir }),
    children: false,
    attachAfter: /^LISTENING /m,
    drive: async (stdout, _ctx, started) => driveLoad(stdout, LOAD_REQUESTS, started),
    normalize: (stdout, ctx) => commonNormalize(stdout, ctx).replace(/^LISTENING http:\/\/127\.0\.0\.1:\d+$/m, 'LISTENING <URL>'),
    detachAfterS: 3,
    timeoutMs: 300_000,
  },
  {
    name: 'efcore',
    what: 'EF Core 10.0.15 + SQLite (test/soak/SoakData): inserts in transactions (one rolled back, one refused by a unique index), 6 rounds of async queries (joins, grouping, includes, a compiled query, streaming, raw SQL, paging, 4 contexts at once), bulk updates and deletes',
    prepare: (ctx) => ({ command: 'dotnet', args: [soakProgramDll('SoakData'), '--db', join(ctx.dir, 'shop.db')], cwd: ctx.dir }),
    children: false,
    startDelayMs: 2000,
    normalize: commonNormalize,
    detachAfterS: 4,
    timeoutMs: 300_000,
  },
  {
    name: 'dotnet-build',
    what: '`dotnet build --no-incremental` of a 3-project solution (a library, an app, an xunit test project), build servers off: the CLI, MSBuild and a csc process per project',
    prepare: () => ({
      command: 'dotnet',
      args: ['build', 'Soak.slnx', '--no-restore', '--no-incremental', '--disable-build-servers', '-nologo', '-v', 'q'],
      cwd: SOLUTION_DIR,
      env: noTelemetry,
    }),
    children: true,
    normalize: (stdout, ctx) => sortedLines(commonNormalize(stdout, ctx)),
    outputs: solutionOutputs,
    detachAfterS: 5,
    timeoutMs: 600_000,
  },
  {
    name: 'dotnet-test',
    what: '`dotnet test` of the same solution: its build, the VSTest host and 20 xunit tests (theories, async tests, expected exceptions, hulls of 200,000 points)',
    prepare: () => ({
      command: 'dotnet',
      args: ['test', 'Soak.slnx', '--no-restore', '--disable-build-servers', '-nologo'],
      cwd: SOLUTION_DIR,
      env: noTelemetry,
    }),
    children: true,
    normalize: (stdout, ctx) => sortedLines(commonNormalize(stdout, ctx)),
    detachAfterS: 5,
    timeoutMs: 600_000,
  },
];

export function programByName(name: string): ProgramSpec {
  const p = PROGRAMS.find((x) => x.name === name);
  if (p === undefined) throw new Error(`no soak program called ${name}; there are ${PROGRAMS.map((x) => x.name).join(', ')}`);
  return p;
}

/** Writes csharpier's ignore file into its input: the files csharpier cannot parse (ilspycmd's C# is not always valid). */
export function writeCsharpierIgnore(dir: string, unparsable: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.csharpierignore'), unparsable.map((f) => `${f}\n`).join(''));
}
