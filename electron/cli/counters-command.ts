// `clrscope counters`: the runtime's counters, live, read straight from the process's counters
// block (shared memory laid out like the .NET Framework's perf-counter IPC block).

import { existsSync } from 'node:fs';
import { IpcBlockError } from '../../structs/ipcblock/ipc-block-error.js';
import { blockPathForPid } from '../../structs/ipcblock/mapping.js';
import type { EventCounterValue } from '../../structs/formats/nettrace/index.js';
import {
  countersRecordOf, countersTableOf, csvHeader, csvRowOf, snapshotSections, type CounterSections, type CountersFormat,
} from '../services/counters/counters-format.js';
import { CountersSource } from '../services/counters/counters-source.js';
import { COUNTERS_SETTLE_MS, EventCountersValues } from '../services/counters/event-counters-values.js';
import { readThreadCount } from '../services/diagnostics/proc.js';
import { EventPipeSession } from '../services/recording/eventpipe-session.js';
import { processAlive, type ProfiledAttach } from '../services/recording/profiled-attach.js';
import { connectTimeoutMs, delay, type ProfiledLaunch } from '../services/recording/profiled-launch.js';
import { profilerLibraryPath } from '../services/profiler/profiler-env.js';
import { attachInstrumented, launchInstrumented } from '../services/recording/start-session.js';
import { UserError } from '../services/errors/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import type { RecordIo } from './record-command.js';
import { commandExitCode } from '../services/recording/program-exit.js';
import { COUNTERS_HELP } from './help-text.js';

interface CountersValues {
  pid?: string;
  refresh?: string;
  format?: string;
  'no-fallback'?: boolean;
  help?: boolean;
}

export interface CountersPlan {
  pid?: number;
  command?: string[];
  refreshMs: number;
  format: CountersFormat;
  /** --pid: read System.Runtime's EventCounters when the runtime refuses the profiler (default true; --no-fallback). */
  fallback: boolean;
}

export function planCounters(argv: readonly string[]): CountersPlan | 'help' {
  const { values, positionals, rest } = parseCommandArgs<CountersValues>(argv, {
    pid: { type: 'string', short: 'p' },
    refresh: { type: 'string' },
    format: { type: 'string' },
    'no-fallback': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, 'counters');
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UserError(`Unexpected argument '${positionals[0]}': give a program after -- (see clrscope counters --help).`);
  const refreshMs = numberOption(values.refresh, 'refresh', 10, 3600000, true) ?? 1000;
  const format = values.format ?? 'table';
  if (format !== 'table' && format !== 'json' && format !== 'csv') throw new UserError(`--format must be table, json or csv, not '${format}'.`);
  const pid = numberOption(values.pid, 'pid', 1, 2 ** 31 - 1, true);
  const command = rest !== undefined && rest.length > 0 ? rest : undefined;
  if ((pid === undefined) === (command === undefined)) {
    throw new UserError('Give either --pid PID or a program after -- (see clrscope counters --help).');
  }
  return { pid, command, refreshMs, format, fallback: values['no-fallback'] !== true };
}

class Printer {
  private headerDone = false;
  constructor(private readonly plan: CountersPlan, private readonly io: RecordIo) {}

  /** `source`: where the values come from, when not from the counters block (the table's title says it). */
  print(sections: CounterSections, pid: number, source = ''): void {
    const now = new Date();
    switch (this.plan.format) {
      case 'json':
        this.io.out(JSON.stringify(countersRecordOf(sections, pid, now)));
        break;
      case 'csv':
        if (!this.headerDone) this.io.out(csvHeader());
        this.headerDone = true;
        this.io.out(csvRowOf(sections, pid, now));
        break;
      default: {
        const table = countersTableOf(sections, pid, this.plan.refreshMs, now, source);
        // On a terminal, redraw in place; into a pipe or file, one table after another.
        this.io.out(process.stdout.isTTY ? `\x1b[H\x1b[2J${table}` : `${table}\n`);
      }
    }
  }
}

/**
 * Waits one refresh, or less when Ctrl-C comes. The timer keeps Node running (delay()'s does
 * not): reading a block that is already there holds nothing else open. The abort listener goes
 * when the refresh is over: left behind, one per refresh, they pile up on the one signal.
 */
function pause(plan: CountersPlan, io: RecordIo): Promise<void> {
  const signal = io.signal;
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, plan.refreshMs);
    signal?.addEventListener('abort', done, { once: true });
    if (signal?.aborted === true) done();
  });
}

async function watch(source: CountersSource, plan: CountersPlan, io: RecordIo, done: () => boolean): Promise<void> {
  const printer = new Printer(plan, io);
  const print = (): void => printer.print(snapshotSections(userErrors(() => source.read())), source.pid);
  while (!done() && !io.signal?.aborted) {
    print();
    await pause(plan, io);
  }
  // The last line holds the final values: the profiler publishes them as the runtime shuts
  // down, and our mapping outlives the process.
  print();
}

/**
 * --pid on a process whose runtime will not load the profiler: System.Runtime's EventCounters
 * through an EventPipe session, printed like block readings (the fields they do not cover stay
 * empty). They come once per whole second, so a shorter --refresh repeats the latest values.
 */
async function watchEventCounters(plan: CountersPlan, pid: number, io: RecordIo): Promise<number> {
  const values = new EventCountersValues();
  const intervalSec = Math.max(1, Math.round(plan.refreshMs / 1000));
  let lastCounterAt = 0;
  const onCounter = (c: EventCounterValue): void => {
    values.add(c);
    lastCounterAt = Date.now();
  };
  const session = await EventPipeSession.start({ pid, samples: false, counterIntervalSec: intervalSec, onCounter });
  const printer = new Printer(plan, io);
  const print = async (): Promise<void> => printer.print(values.sections(await readThreadCount(pid)), pid, 'from System.Runtime EventCounters');
  const over = (): boolean => io.signal?.aborted === true || session.isEnded || !processAlive(pid);
  try {
    // The first values come about one interval after the session starts, in pieces: the first
    // line waits for all of them.
    const firstBy = Date.now() + intervalSec * 1000 + connectTimeoutMs();
    while ((!values.any || Date.now() - lastCounterAt < COUNTERS_SETTLE_MS) && !over() && Date.now() < firstBy) await delay(20);
    while (!over()) {
      await print();
      await pause(plan, io);
    }
  } finally {
    const outcome = await session.stop();
    if (outcome.problem !== undefined) io.err(`clrscope: ${outcome.problem}`);
  }
  if (values.any) await print();
  else io.err(`clrscope: process ${pid} sent no counters before the session ended.`);
  return 0;
}

/** The process's block if clrscope is already loaded in it; undefined when it has none (yet). */
function existingBlock(pid: number): CountersSource | undefined {
  try {
    return CountersSource.forPid(pid);
  } catch (err) {
    if (!(err instanceof IpcBlockError)) throw err;
    if (err.kind !== 'missing') throw new UserError(err.message);
    if (!processAlive(pid)) throw new UserError(`There is no process with pid ${pid}.`);
    // On Windows the sentence says which of the blocks (clrscope's, the .NET Framework's) is missing and why.
    if (process.platform === 'win32') throw new UserError(err.message);
    return undefined;
  }
}

async function waitForWrittenBlock(pid: number, timeoutMs: number): Promise<CountersSource | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const source = CountersSource.forPid(pid);
      if (source.written()) return source;
      source.close();
    } catch {
      // not there yet
    }
    await delay(10);
  }
  return undefined;
}

/** --pid: read the block of a process already under clrscope, or attach (counters only) and detach at the end. */
async function watchPid(plan: CountersPlan, pid: number, io: RecordIo): Promise<number> {
  let source = existingBlock(pid);
  let attach: ProfiledAttach | undefined;
  if (source === undefined) {
    const libraryPath = profilerLibraryPath();
    if (!existsSync(libraryPath)) {
      throw new UserError(`The clrscope profiler library is missing at ${libraryPath}: build it with 'npm run build:native' (or set CLRSCOPE_PROFILER_PATH).`);
    }
    const decision = await attachInstrumented({ pid, intervalMs: Math.min(plan.refreshMs, 10), wall: false, cpu: false, libraryPath, runtimeCounters: true }, 'counters', plan.fallback);
    if (decision.kind === 'eventpipe') {
      io.err(`clrscope: ${decision.notice}`);
      return watchEventCounters(plan, pid, io);
    }
    attach = decision.attached;
    source = await waitForWrittenBlock(pid, connectTimeoutMs());
    if (source === undefined) {
      await attach.detach();
      throw new UserError(`Process ${pid} loaded the profiler but published no counters.`);
    }
  }
  try {
    await watch(source, plan, io, () => !processAlive(pid));
  } finally {
    source.close();
    // Detaching leaves the process as it was: the counters block goes with the profiler.
    await attach?.detach();
  }
  return 0;
}

/** A block that cannot be decoded (wrong version, corrupt) is the user's to hear about in one sentence. */
function userErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof IpcBlockError) throw new UserError(err.message);
    throw err;
  }
}

async function waitForBlock(launch: ProfiledLaunch, command: string): Promise<CountersSource | undefined> {
  const path = blockPathForPid(launch.pid);
  let exited = false;
  void launch.exited.then(() => { exited = true; });
  const deadline = Date.now() + connectTimeoutMs();
  while (!exited && Date.now() < deadline) {
    if (process.platform === 'win32' || existsSync(path)) {
      try {
        const source = CountersSource.forPid(launch.pid);
        if (source.written()) return source;
        source.close();
      } catch {
        // not there yet
      }
    }
    await delay(10);
  }
  if (!exited) throw new UserError(`No counters block appeared for ${command} (pid ${launch.pid}) within ${Math.round(connectTimeoutMs() / 1000)} s: it does not look like a .NET program, or its runtime did not load the profiler.`);
  return undefined;
}

export async function runCounters(argv: readonly string[], io: RecordIo): Promise<number> {
  const plan = planCounters(argv);
  if (plan === 'help') {
    io.out(COUNTERS_HELP);
    return 0;
  }
  if (plan.pid !== undefined) return watchPid(plan, plan.pid, io);
  const command = plan.command ?? [];
  const libraryPath = profilerLibraryPath();
  if (!existsSync(libraryPath)) {
    throw new UserError(`The clrscope profiler library is missing at ${libraryPath}: build it with 'npm run build:native' (or set CLRSCOPE_PROFILER_PATH).`);
  }
  // Counters only: no stack sampling; the sampler still ticks to publish the block. The
  // program's own output goes to stderr so stdout carries nothing but counters.
  const launch = await launchInstrumented({
    command: command[0],
    args: command.slice(1),
    intervalMs: Math.min(plan.refreshMs, 10),
    wall: false,
    cpu: false,
    libraryPath,
    // System.Runtime's counters, which only counters and the workstation turn on (shim/engine.cpp).
    env: { ...process.env, CLRSCOPE_RUNTIME_COUNTERS: '1' },
    output: (_stream, chunk) => process.stderr.write(chunk),
  });
  let exited = false;
  void launch.exited.then(() => { exited = true; });
  const onAbort = (): void => { void launch.stopProgram(); };
  io.signal?.addEventListener('abort', onAbort, { once: true });
  let source: CountersSource | undefined;
  try {
    source = await waitForBlock(launch, command[0]);
    // watch() prints once more after the exit: the final values, published as the runtime
    // shut down.
    if (source !== undefined) await watch(source, plan, io, () => exited);
  } finally {
    io.signal?.removeEventListener('abort', onAbort);
  }
  if (!exited) await launch.stopProgram();
  const exit = await launch.exited;
  if (source !== undefined) {
    source.close();
  } else {
    io.err(`clrscope: ${command[0]} exited before a .NET runtime published counters; nothing to show.`);
  }
  await launch.finish();
  return commandExitCode(exit);
}
