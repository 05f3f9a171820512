// `clrscope heap FILE` / `clrscope heap --pid PID` / `clrscope heap [--after S] -- PROGRAM`: a heap
// snapshot's types (count, own bytes, retained bytes), each generation's fragmentation when the
// snapshot has it, the shortest paths from roots to a type's objects, or what grew since another
// snapshot. Snapshots come from files (every heap format in structs/heap/heap-formats.ts) or
// are taken of a running process (electron/services/heap/take-heap-snapshot.ts) and saved with
// -o as .clrheap (structs/formats/clrheap/) or .gcdump (structs/formats/gcdump/write-gcdump.ts);
// the analysis is structs/heap/heap-analysis.ts.

import { diffPaths, diffTypeStats, HeapAnalysis, type TypeStats } from '../../structs/heap/heap-analysis.js';
import type { HeapSnapshot } from '../../structs/heap/heap-snapshot.js';
import { takeHeapSnapshot } from '../services/heap/take-heap-snapshot.js';
import { launchForSnapshot } from '../services/heap/launch-for-snapshot.js';
import { readHeapFile } from '../services/heap/read-heap-file.js';
import { HEAP_OUTPUT_NAMES, writeHeapFile } from '../services/heap/write-heap-file.js';
import { heapOutputFormatOf } from '../../structs/heap/heap-formats.js';
import { UserError } from '../services/errors/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { HEAP_HELP } from './help-text.js';

export interface HeapIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const DEFAULT_TOP = 20;

export async function runHeap(argv: readonly string[], io: HeapIo): Promise<number> {
  const { values, positionals, rest } = parseCommandArgs<{
    format?: string; paths?: string; diff?: string; top?: string; help?: boolean; pid?: string; output?: string; after?: string; timeout?: string;
    'max-objects'?: string;
  }>(argv, {
    pid: { type: 'string', short: 'p' },
    output: { type: 'string', short: 'o' },
    after: { type: 'string' },
    timeout: { type: 'string' },
    'max-objects': { type: 'string' },
    format: { type: 'string' },
    paths: { type: 'string' },
    diff: { type: 'string' },
    top: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, 'heap');
  if (values.help === true) {
    io.out(HEAP_HELP);
    return 0;
  }
  const pid = numberOption(values.pid, 'pid', 1, 2 ** 31 - 1, true);
  const program = rest ?? [];
  const sources = (pid !== undefined ? 1 : 0) + (program.length > 0 ? 1 : 0) + (positionals.length > 0 ? 1 : 0);
  if (sources > 1) throw new UserError('Give one snapshot source: a file, --pid PID, or a program after -- (see clrscope heap --help).');
  if (sources === 0) throw new UserError('clrscope heap needs a snapshot file, e.g. clrscope heap app.gcdump, a process (--pid PID), or a program after --.');
  if (positionals.length > 1) throw new UserError(`clrscope heap reads one snapshot file, not ${positionals.length} (compare two with --diff BASE).`);
  if (values.after !== undefined && program.length === 0) throw new UserError('--after goes with a program after -- (it says when to take the snapshot of it).');
  if (values.output !== undefined && heapOutputFormatOf(values.output) === undefined) {
    throw new UserError(`-o saves the snapshot as ${HEAP_OUTPUT_NAMES}, which ${values.output} does not end in.`);
  }
  const format: 'text' | 'json' = values.format === 'json' ? 'json' : 'text';
  if (values.format !== undefined && values.format !== 'text' && values.format !== 'json') throw new UserError(`--format must be text or json, not '${values.format}'.`);
  const top = numberOption(values.top, 'top', 0, 1_000_000, true) ?? DEFAULT_TOP;
  const timeoutS = numberOption(values.timeout, 'timeout', 1, 86_400, false);
  const after = numberOption(values.after, 'after', 0, 86_400, false) ?? 3;
  const maxObjects = numberOption(values['max-objects'], 'max-objects', 1, 2 ** 31 - 1, true);

  let snapshot: HeapSnapshot;
  let finishProgram: (() => Promise<number>) | undefined;
  let overBudget = false;
  let cutShort = false;  // the process exited, or its stream broke, before the walk ended
  if (positionals.length > 0) {
    snapshot = readHeapFile(positionals[0]);
    if (values.output !== undefined) {
      await writeHeapFile(values.output, snapshot);
      io.err(`Saved the snapshot to ${values.output}.`);
    }
  } else {
    let target = pid;
    if (target === undefined) {
      const launched = await launchForSnapshot(program[0], program.slice(1), after * 1000);
      target = launched.pid;
      finishProgram = launched.finish;
    }
    const taken = await takeHeapSnapshot(target, {
      ...(timeoutS !== undefined ? { timeoutMs: timeoutS * 1000 } : {}),
      ...(maxObjects !== undefined ? { maxObjects } : {}),
      onProgress: (line) => io.err(line),
    });
    overBudget = taken.overBudget;
    cutShort = !taken.complete && !taken.overBudget;
    snapshot = taken.snapshot;
    const s = taken.stats;
    io.err(`Heap of process ${target}: ${group(s.objects)} objects, ${group(s.references)} references, ${group(s.roots)} roots (collection ${s.gcNumber}, ${(taken.elapsedMs / 1000).toFixed(1)} s, the walk ${(taken.walkMs / 1000).toFixed(1)} s).`);
    if (values.output !== undefined) {
      await writeHeapFile(values.output, snapshot, { pid: target, takenAt: new Date().toISOString(), gcNumber: s.gcNumber });
      io.err(`Saved the snapshot to ${values.output}.`);
    }
  }
  const code = printAnalysis(new HeapAnalysis(snapshot), values, format, top, io);
  const programCode = finishProgram !== undefined ? await finishProgram() : code;
  // What was read is shown and saved above; the exit says it is not the whole heap.
  const kept = `the snapshot shown${values.output !== undefined ? ' and saved' : ''}`;
  if (overBudget && programCode === 0) {
    const budget = maxObjects !== undefined ? `--max-objects (${group(maxObjects)})` : 'the memory budget (half this machine\'s memory)';
    io.err(`clrscope: The heap held more objects than ${budget}: ${kept} is of the first ones only.`);
    return 1;
  }
  if (cutShort && programCode === 0) {
    io.err(`clrscope: The heap walk ended before the collection did (the process exited or its stream broke): ${kept} holds only the objects read.`);
    return 1;
  }
  return programCode;
}

function printAnalysis(analysis: HeapAnalysis, values: { paths?: string; diff?: string }, format: 'text' | 'json', top: number, io: HeapIo): number {
  if (values.paths !== undefined && values.diff !== undefined) {
    const type = resolveType(analysis.typeStats(), values.paths);
    const base = new HeapAnalysis(readHeapFile(values.diff));
    const rows = diffPaths(base.pathsTo(type), analysis.pathsTo(type));
    if (format === 'json') io.out(JSON.stringify({ type, paths: rows }));
    else if (rows.length === 0) io.out(`No path to ${type} changed.`);
    else for (const r of rows) io.out(`${signed(r.countDelta).padStart(11)}  ${group(r.count).padStart(11)}  ${r.path.join(' → ')}`);
    return 0;
  }

  if (values.paths !== undefined) {
    const type = resolveType(analysis.typeStats(), values.paths);
    const paths = analysis.pathsTo(type);
    if (format === 'json') io.out(JSON.stringify({ type, paths }));
    else if (paths.length === 0) io.out(`No ${type} object is reachable from a root.`);
    else for (const p of paths) io.out(`${group(p.count).padStart(11)}  ${p.path.join(' → ')}`);
    return 0;
  }

  if (values.diff !== undefined) {
    const base = new HeapAnalysis(readHeapFile(values.diff));
    const rows = diffTypeStats(base.typeStats(), analysis.typeStats());
    const shown = top === 0 ? rows : rows.slice(0, top);
    if (format === 'json') {
      io.out(JSON.stringify({ types: shown }));
      return 0;
    }
    io.out(`${'count Δ'.padStart(11)}  ${'count'.padStart(11)}  ${'retained Δ'.padStart(15)}  ${'retained bytes'.padStart(15)}  type`);
    for (const r of shown) io.out(`${signed(r.countDelta).padStart(11)}  ${group(r.count).padStart(11)}  ${signed(r.retainedDelta).padStart(15)}  ${group(r.retainedBytes).padStart(15)}  ${r.type}`);
    if (rows.length === 0) io.out('No type changed.');
    return 0;
  }

  const types = analysis.typeStats();
  const shown = top === 0 ? types : types.slice(0, top);
  const generations = analysis.snapshot.generations;
  if (format === 'json') {
    io.out(JSON.stringify({
      types: shown.map((t) => ({ type: t.type, count: t.count, bytes: t.bytes, retainedBytes: t.retainedBytes })),
      ...(generations !== undefined ? { generations } : {}),
    }));
    return 0;
  }
  io.out(`${'count'.padStart(11)}  ${'bytes'.padStart(15)}  ${'retained bytes'.padStart(15)}  type`);
  for (const t of shown) io.out(`${group(t.count).padStart(11)}  ${group(t.bytes).padStart(15)}  ${group(t.retainedBytes).padStart(15)}  ${t.type}`);
  if (shown.length < types.length) io.out(`(${types.length - shown.length} more types; --top 0 shows all)`);
  if (generations !== undefined) {
    io.out('');
    io.out(`${'generation'.padEnd(10)}  ${'size'.padStart(15)}  ${'fragmentation'.padStart(15)}  ${'free list'.padStart(15)}  ${'free objects'.padStart(15)}       %`);
    for (const g of generations) {
      const share = g.sizeBytes > 0 ? ((100 * g.fragmentationBytes) / g.sizeBytes).toFixed(1) : '-';
      io.out(`${g.name.padEnd(10)}  ${group(g.sizeBytes).padStart(15)}  ${group(g.fragmentationBytes).padStart(15)}  ${group(g.freeListBytes).padStart(15)}  ${group(g.freeObjectBytes).padStart(15)}  ${share.padStart(6)}`);
    }
  }
  return 0;
}

/** A type's full name, or a part of exactly one type's name. */
function resolveType(types: readonly TypeStats[], wanted: string): string {
  if (types.some((t) => t.type === wanted)) return wanted;
  const matches = types.filter((t) => t.type.endsWith(`.${wanted}`) || t.type.includes(wanted));
  if (matches.length === 1) return matches[0].type;
  if (matches.length === 0) throw new UserError(`No type in the snapshot is named ${wanted}.`);
  const suffix = matches.filter((t) => t.type.endsWith(`.${wanted}`) || t.type === wanted);
  if (suffix.length === 1) return suffix[0].type;
  throw new UserError(`${wanted} names ${matches.length} types (${matches.slice(0, 3).map((t) => t.type).join(', ')}${matches.length > 3 ? ', …' : ''}): give the full name.`);
}

function group(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function signed(n: number): string {
  return n > 0 ? `+${group(n)}` : group(n);
}
