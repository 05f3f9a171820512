// `clrscope ps`: the .NET processes of this user, whether clrscope can attach to each (with its
// profiler, or only through EventPipe), and why not. A table for people, --json for scripts.

import { DEFAULT_DISCOVERY_TIMEOUT_MS, listDotnetProcesses, processInfoOf, type DotnetProcess } from '../services/discovery/discovery.js';
import type { ProcessInfo } from '../../structs/api/contract.js';
import { UserError } from '../services/errors/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { PS_HELP } from './help-text.js';

interface PsValues {
  json?: boolean;
  timeout?: string;
  help?: boolean;
}

export interface PsPlan {
  json: boolean;
  timeoutMs: number;
}

export function planPs(argv: readonly string[]): PsPlan | 'help' {
  const { values, positionals, rest } = parseCommandArgs<PsValues>(argv, {
    json: { type: 'boolean' },
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, 'ps');
  if (values.help) return 'help';
  const extra = positionals[0] ?? rest?.[0];
  if (extra !== undefined) throw new UserError(`Unexpected argument '${extra}': clrscope ps takes only options (see clrscope ps --help).`);
  return { json: values.json === true, timeoutMs: numberOption(values.timeout, 'timeout', 10, 60000, true) ?? DEFAULT_DISCOVERY_TIMEOUT_MS };
}

/** The JSON `clrscope ps --json` prints: exactly these keys, in this order. */
export type PsJsonEntry = ProcessInfo;

export function psJsonEntries(list: readonly DotnetProcess[]): PsJsonEntry[] {
  return list.map((p) => processInfoOf(p));
}

function clip(text: string, width: number): string {
  if (width <= 0 || text.length <= width) return text;
  return width === 1 ? '…' : `${text.slice(0, width - 1)}…`;
}

/** The table; `width` (a terminal's columns) clips long lines, 0 leaves them whole. */
export function psTable(list: readonly DotnetProcess[], width = 0): string {
  if (list.length === 0) return 'No .NET processes found.';
  const rows = list.map((p) => ({
    pid: String(p.pid),
    name: clip(p.name, 24),
    runtime: p.runtimeVersion ?? '-',
    attach: !p.attachable ? 'no' : p.eventPipeOnly ? 'eventpipe' : 'yes',
    // Which container and the pid the process has there (what `docker top` or `ps` inside show).
    container: p.container === null ? '-' : `${p.container.id} pid ${p.container.pid}`,
    command: p.commandLine,
    reason: p.reason,
    eventPipeOnly: p.eventPipeOnly,
  }));
  const w = (key: 'pid' | 'name' | 'runtime' | 'attach' | 'container', title: string): number => Math.max(title.length, ...rows.map((r) => r[key].length));
  const widths = { pid: w('pid', 'PID'), name: w('name', 'NAME'), runtime: w('runtime', 'RUNTIME'), attach: w('attach', 'ATTACH'), container: w('container', 'CONTAINER') };
  // The column only when some process runs in a container.
  const containers = list.some((p) => p.container !== null);
  const indent = widths.pid + 2;
  const line = (pid: string, name: string, runtime: string, attach: string, container: string, command: string): string => {
    const inner = containers ? `${container.padEnd(widths.container)}  ` : '';
    const head = `${pid.padStart(widths.pid)}  ${name.padEnd(widths.name)}  ${runtime.padEnd(widths.runtime)}  ${attach.padEnd(widths.attach)}  ${inner}`;
    return `${head}${width > 0 ? clip(command, width - head.length) : command}`.trimEnd();
  };
  const out = [line('PID', 'NAME', 'RUNTIME', 'ATTACH', 'CONTAINER', 'COMMAND LINE')];
  for (const r of rows) {
    out.push(line(r.pid, r.name, r.runtime, r.attach, r.container, r.command));
    if (r.reason !== null) {
      const text = `${' '.repeat(indent)}${r.eventPipeOnly ? 'EventPipe only (approximate CPU)' : 'not attachable'}: ${r.reason}`;
      out.push(width > 0 ? clip(text, width) : text);
    }
  }
  return out.join('\n');
}

export interface PsIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export async function runPs(argv: readonly string[], io: PsIo): Promise<number> {
  const plan = planPs(argv);
  if (plan === 'help') {
    io.out(PS_HELP);
    return 0;
  }
  const list = await listDotnetProcesses({ timeoutMs: plan.timeoutMs });
  if (plan.json) io.out(JSON.stringify(psJsonEntries(list), null, 2));
  else io.out(psTable(list, process.stdout.isTTY ? process.stdout.columns : 0));
  return 0;
}
