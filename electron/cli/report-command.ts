// `clrscope report FILE`: the workstation's analysis without the workstation. Reads any format
// clrscope reads (through the same entry point as convert and "Open recording…"), runs the
// same pure analysis the workstation's worker runs (structs/analysis), and prints text that
// fits a terminal, stable JSON (README.md) or CSV.

import { accessSync, constants as fsConstants } from 'node:fs';
import { parseFoldSpec, type FoldOptions } from '../../structs/analysis/fold-options.js';
import { findFunction } from '../../structs/analysis/find-function.js';
import { ProfileAnalysis, diffAnalyses, type AnalysisQuery } from '../../structs/analysis/profile-analysis.js';
import {
  REPORT_VERSION, reportDiffFunctions, reportDiffTree, reportFunctions, reportGc, reportSource, reportTree, type Report, type ReportWindow,
} from '../../structs/analysis/report-model.js';
import { sampleTypesOf } from '../../structs/analysis/stack-weights.js';
import { cpuIsEstimated } from '../services/workstation/imported-cpu.js';
import { functionLines } from '../../structs/analysis/function-lines.js';
import type { DiffNormalize } from '../../structs/analysis/diff.js';
import { LineSource } from '../../structs/analysis/line-source.js';
import { AsyncSource } from '../../structs/analysis/async-source.js';
import type { SampleSource } from '../../structs/analysis/stack-source.js';
import type { Recording, SampleMetric } from '../../structs/profile/recording.js';
import { ownCostPercent, ownCostTotalNs, programCpuNs } from '../../structs/profile/own-cost.js';
import { PdbLines } from '../services/source-lines/pdb-lines.js';
import { readFormatOf, readRecordingFile } from '../services/export/recording-file.js';
import { fsErrorText } from '../services/errors/fs-error-text.js';
import { UserError } from '../services/errors/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { ProgressLine, type ConvertIo } from './convert-command.js';
import { REPORT_HELP } from './help-text.js';
import { reportCsv } from './report-csv.js';
import { gcsReport, gcsText } from './report-gcs.js';
import { exceptionsReport, exceptionsText } from './report-exceptions.js';
import { requestTable, requestTableText } from '../../structs/analysis/requests.js';
import { requestTracking, requestTrackingJson, requestTrackingSentence } from '../../structs/analysis/request-tracking.js';
import { reportText } from './report-text.js';
import { blockingReport, blockingText } from './report-blocking.js';

export type ReportFormat = 'text' | 'json' | 'csv';

export interface ReportPlan {
  file: string;
  /** --top N (0: all); null when not given: 20 rows, and the table only when nothing else is asked for. */
  top: number | null;
  callers: string | null;
  callees: string | null;
  tree: boolean;
  diff: string | null;
  baseWindow: ReportWindow;
  normalize: DiffNormalize;
  fold: FoldOptions;
  lines: boolean;
  /** --async: the analyses run on the async call stacks ([await] frames) where the recording has them. */
  asyncStacks: boolean;
  /** --source NAME: the function whose time per source line to print. */
  source: string | null;
  /** null: the first the recording has of cpu, wall, samples. */
  sampleType: SampleMetric | null;
  window: ReportWindow;
  minPercent: number;
  format: ReportFormat;
  /** --gcs: only the GC table (report-gcs.ts). */
  gcs: boolean;
  /** --exceptions: only the exceptions by where they started (report-exceptions.ts). */
  exceptions: boolean;
  /** --requests: only the HTTP requests' table per endpoint (structs/analysis/requests.ts). */
  requests: boolean;
  /** --blocking: only the sites blocking thread-pool threads and the pool's starvation (report-blocking.ts). */
  blocking: boolean;
}

export interface ReportIo extends ConvertIo {
  /** Terminal width for text output; absent when stdout is not a terminal. */
  columns?: number;
}

const SAMPLE_TYPES: readonly SampleMetric[] = ['cpu', 'wall', 'samples'];
const DEFAULT_TOP = 20;

/** `START:END` in seconds from the recording's start; either side may be empty. */
export function parseWindow(text: string | undefined, option: string): ReportWindow {
  if (text === undefined) return { fromMs: null, toMs: null };
  const m = /^\s*([0-9.]*)\s*:\s*([0-9.]*)\s*$/.exec(text);
  const side = (s: string): number | null => {
    if (s === '') return null;
    const n = Number(s);
    if (!Number.isFinite(n) || n < 0) throw new UserError(`${option} takes START:END in seconds from the recording's start (e.g. 2:5.5, or 10: for from 10 s on), not '${text}'.`);
    return n * 1000;
  };
  if (m === null) throw new UserError(`${option} takes START:END in seconds from the recording's start (e.g. 2:5.5, or 10: for from 10 s on), not '${text}'.`);
  const window = { fromMs: side(m[1]), toMs: side(m[2]) };
  if (window.fromMs !== null && window.toMs !== null && window.toMs <= window.fromMs) throw new UserError(`${option} ${text} ends before it starts.`);
  return window;
}

export function planReport(argv: readonly string[]): ReportPlan | 'help' {
  const { values, positionals, rest } = parseCommandArgs<{
    top?: string; callers?: string; callees?: string; tree?: boolean; diff?: string; 'base-window'?: string; normalize?: string;
    fold?: string[]; lines?: boolean; async?: boolean; gcs?: boolean; exceptions?: boolean; requests?: boolean; blocking?: boolean; source?: string; 'sample-type'?: string; window?: string; 'min-percent'?: string; format?: string; help?: boolean;
  }>(argv, {
    top: { type: 'string' },
    callers: { type: 'string' },
    callees: { type: 'string' },
    tree: { type: 'boolean' },
    diff: { type: 'string' },
    'base-window': { type: 'string' },
    normalize: { type: 'string' },
    fold: { type: 'string', multiple: true },
    lines: { type: 'boolean' },
    async: { type: 'boolean' },
    gcs: { type: 'boolean' },
    exceptions: { type: 'boolean' },
    requests: { type: 'boolean' },
    blocking: { type: 'boolean' },
    source: { type: 'string' },
    'sample-type': { type: 'string' },
    window: { type: 'string' },
    'min-percent': { type: 'string' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, 'report');
  if (values.help) return 'help';
  const args = [...positionals, ...(rest ?? [])];
  if (args.length === 0) throw new UserError('No recording given: e.g. clrscope report app.clrscope --top 20.');
  if (args.length > 1) throw new UserError(`Report reads one recording, not ${args.length} (compare two with --diff BASE).`);
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json' && format !== 'csv') throw new UserError(`--format must be text, json or csv, not '${format}'.`);
  const sampleType = values['sample-type'] ?? null;
  if (sampleType !== null && !SAMPLE_TYPES.includes(sampleType as SampleMetric)) throw new UserError(`--sample-type must be cpu, wall or samples, not '${sampleType}'.`);
  const normalize = values.normalize ?? 'share';
  if (normalize !== 'share' && normalize !== 'absolute') throw new UserError(`--normalize must be share or absolute, not '${normalize}'.`);
  if (values.diff === undefined && values['base-window'] !== undefined) throw new UserError('--base-window needs --diff BASE (give the same file twice to compare two windows of one recording).');
  if (values.diff === undefined && values.normalize !== undefined) throw new UserError('--normalize needs --diff BASE.');
  let fold: FoldOptions;
  try {
    fold = parseFoldSpec(values.fold ?? []);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const plan: ReportPlan = {
    file: args[0],
    top: numberOption(values.top, 'top', 0, 1_000_000, true) ?? null,
    callers: values.callers ?? null,
    callees: values.callees ?? null,
    tree: values.tree === true,
    diff: values.diff ?? null,
    baseWindow: parseWindow(values['base-window'], '--base-window'),
    normalize,
    fold,
    lines: values.lines === true,
    asyncStacks: values.async === true,
    source: values.source ?? null,
    sampleType: sampleType as SampleMetric | null,
    window: parseWindow(values.window, '--window'),
    minPercent: numberOption(values['min-percent'], 'min-percent', 0, 100, false) ?? 0.5,
    format,
    gcs: values.gcs === true,
    exceptions: values.exceptions === true,
    requests: values.requests === true,
    blocking: values.blocking === true,
  };
  if (plan.gcs && plan.exceptions) throw new UserError('--gcs and --exceptions each print a table alone: ask for one at a time.');
  if (plan.exceptions && (plan.callers !== null || plan.callees !== null || plan.tree || plan.diff !== null || plan.source !== null || plan.lines || plan.asyncStacks)) {
    throw new UserError('--exceptions prints the exceptions alone: it does not go with --callers, --callees, --tree, --diff, --source, --lines or --async.');
  }
  if (plan.exceptions && plan.format === 'csv') throw new UserError('--exceptions prints text or json, not csv.');
  if (plan.gcs && (plan.callers !== null || plan.callees !== null || plan.tree || plan.diff !== null || plan.source !== null || plan.lines || plan.asyncStacks)) {
    throw new UserError('--gcs prints the GC table alone: it does not go with --callers, --callees, --tree, --diff, --source, --lines or --async.');
  }
  if (plan.gcs && plan.format === 'csv') throw new UserError('--gcs prints text or json, not csv.');
  if (plan.requests && (plan.gcs || plan.exceptions || plan.callers !== null || plan.callees !== null || plan.tree || plan.diff !== null || plan.source !== null || plan.lines || plan.asyncStacks)) {
    throw new UserError('--requests prints the requests\' table alone: it does not go with --gcs, --exceptions, --callers, --callees, --tree, --diff, --source, --lines or --async.');
  }
  if (plan.requests && plan.format === 'csv') throw new UserError('--requests prints text or json, not csv.');
  if (plan.blocking && (plan.requests || plan.gcs || plan.exceptions || plan.callers !== null || plan.callees !== null || plan.tree || plan.diff !== null || plan.source !== null || plan.lines || plan.asyncStacks)) {
    throw new UserError('--blocking prints the thread pool\'s blocking sites alone: it does not go with --requests, --gcs, --exceptions, --callers, --callees, --tree, --diff, --source, --lines or --async.');
  }
  if (plan.blocking && plan.format === 'csv') throw new UserError('--blocking prints text or json, not csv.');
  if (plan.source !== null && plan.source.trim() === '') throw new UserError('--source takes a function name, e.g. --source HotLineWork.Mix.');
  if (plan.source !== null && plan.diff !== null) throw new UserError('--source shows one recording\'s lines: it does not go with --diff.');
  if (plan.format === 'csv' && [plan.callers !== null, plan.callees !== null, plan.tree && plan.diff === null, plan.source !== null].filter(Boolean).length > 1) {
    throw new UserError('--format csv prints one table: ask for one of --callers, --callees, --tree or --source at a time.');
  }
  readFormatOf(plan.file);
  if (plan.diff !== null) readFormatOf(plan.diff);
  return plan;
}

function checkReadable(path: string): void {
  try {
    accessSync(path, fsConstants.R_OK);
  } catch (err) {
    throw new UserError(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
}

function query(window: ReportWindow, metric: SampleMetric, fold: FoldOptions): AnalysisQuery {
  return { metric, fold, ...(window.fromMs !== null ? { fromMs: window.fromMs } : {}), ...(window.toMs !== null ? { toMs: window.toMs } : {}) };
}

/** The function a --callers/--callees name means, or one sentence saying why there is none. */
function resolveName(analysis: ProfileAnalysis, q: AnalysisQuery, name: string, option: string): string {
  const match = findFunction(analysis.functions(q), name);
  if (match.kind === 'found') return match.name;
  if (match.kind === 'none') throw new UserError(`${option} ${name}: no function of that name has samples in this ${q.metric} report.`);
  throw new UserError(`${option} ${name} matches several functions; give one exactly, e.g. ${match.names.slice(0, 3).map((n) => `'${n}'`).join(', ')}.`);
}

/** The report's data: everything the three output formats print. */
export async function buildReport(plan: ReportPlan, progress?: ProgressLine): Promise<Report> {
  checkReadable(plan.file);
  if (plan.diff !== null) checkReadable(plan.diff);
  const opened = await readRecordingFile(plan.file, progress?.update);
  // --lines: every analysis runs on the recording seen per source line.
  const pdbLines = plan.lines ? new PdbLines() : null;
  if (plan.lines && plan.asyncStacks) throw new UserError('--lines and --async do not go together yet: pick one.');
  // --async: the recording's samples through their async call stacks (physical where it has none).
  const sourceOf = (rec: Recording): SampleSource => (pdbLines !== null ? new LineSource(rec, pdbLines.linesOf(rec)) : plan.asyncStacks ? new AsyncSource(rec) : rec);
  const analysis = new ProfileAnalysis(sourceOf(opened.recording));
  const types = sampleTypesOf(opened.recording);
  const metric = plan.sampleType ?? types[0];
  if (!types.includes(metric)) throw new UserError(`${plan.file} has no ${metric} values: its sample types are ${types.join(', ')}.`);
  const q = query(plan.window, metric, plan.fold);
  const table = analysis.functions(q);
  const minValue = (plan.minPercent / 100) * table.totalValue;
  const report: Report = {
    clrscopeReport: REPORT_VERSION,
    file: plan.file,
    format: opened.format,
    sampleType: metric,
    unit: metric === 'samples' ? 'samples' : 'nanoseconds',
    window: plan.window,
    fold: plan.fold,
    minPercent: plan.minPercent,
    totalValue: table.totalValue,
    sampleCount: table.sampleCount,
  };
  if (metric === 'cpu' && cpuIsEstimated(opened.format, opened.recording)) report.cpuEstimated = true;
  const gc = reportGc(table);
  if (gc !== undefined) report.gc = gc;
  const cost = opened.recording.stats?.cost;
  if (cost !== undefined) {
    report.ownCost = { ...cost, totalNs: ownCostTotalNs(cost), programCpuNs: programCpuNs(cost), percentOfProgram: ownCostPercent(cost) ?? null };
  }
  const other = plan.callers !== null || plan.callees !== null || plan.tree || plan.diff !== null || plan.source !== null;
  const top = plan.top ?? DEFAULT_TOP;
  if (!other || plan.top !== null) report.functions = reportFunctions(table, top);
  for (const [option, name, key] of [['--callers', plan.callers, 'callers'], ['--callees', plan.callees, 'callees']] as const) {
    if (name === null) continue;
    const resolved = resolveName(analysis, q, name, option);
    const s = analysis.sandwich(q, resolved);
    if (s === null) throw new UserError(`${option} ${name}: no function of that name has samples in this report.`);
    const tree = key === 'callers' ? s.callers : s.callees;
    report[key] = { name: resolved, self: s.self, total: s.total, tree: reportTree(tree, 1, minValue) };
  }
  if (plan.source !== null) {
    // Named as the functions table names it without --lines (a method, not a method at a line).
    const plain = pdbLines === null ? analysis : new ProfileAnalysis(opened.recording);
    const name = resolveName(plain, q, plan.source, '--source');
    const pdbs = pdbLines ?? new PdbLines();
    report.source = reportSource(functionLines(opened.recording, pdbs.linesOf(opened.recording), name, q), table.totalValue);
    if (pdbLines === null) {
      if (!opened.recording.hasFrames) pdbs.notes.unshift(`${plan.file} carries no IL offsets (only clrscope recordings made since source lines were added do), so no line is known.`);
      report.lineNotes = pdbs.notes;
    }
  }
  if (plan.diff !== null) {
    const base = plan.diff === plan.file ? opened : await readRecordingFile(plan.diff, progress?.update);
    const baseAnalysis = base === opened ? analysis : new ProfileAnalysis(sourceOf(base.recording));
    const baseTypes = sampleTypesOf(base.recording);
    if (!baseTypes.includes(metric)) throw new UserError(`${plan.diff} has no ${metric} values to compare: its sample types are ${baseTypes.join(', ')}.`);
    const d = diffAnalyses(baseAnalysis, query(plan.baseWindow, metric, plan.fold), analysis, q, plan.normalize);
    report.diff = {
      base: plan.diff,
      baseFormat: base.format,
      baseWindow: plan.baseWindow,
      normalize: plan.normalize,
      beforeTotal: d.functions.beforeValue,
      afterTotal: d.functions.afterValue,
      beforeSamples: d.functions.beforeSamples,
      afterSamples: d.functions.afterSamples,
      functions: reportDiffFunctions(d.functions, plan.normalize, top),
      ...(plan.tree ? { tree: reportDiffTree(d.tree, plan.minPercent) } : {}),
    };
  } else if (plan.tree) {
    report.tree = reportTree(analysis.tree(q, false), 0, minValue);
  }
  if (pdbLines !== null) {
    report.lines = true;
    if (!opened.recording.hasFrames) pdbLines.notes.unshift(`${plan.file} carries no IL offsets (only clrscope recordings made since source lines were added do), so no line is known.`);
    report.lineNotes = pdbLines.notes;
  }
  return report;
}

export async function runReport(argv: readonly string[], io: ReportIo): Promise<number> {
  const plan = planReport(argv);
  if (plan === 'help') {
    io.out(REPORT_HELP);
    return 0;
  }
  const line = new ProgressLine(io, { reading: plan.file, writing: '' });
  if (plan.gcs || plan.exceptions || plan.requests || plan.blocking) {
    checkReadable(plan.file);
    let rec: Recording;
    try {
      rec = (await readRecordingFile(plan.file, line.update)).recording;
    } finally {
      line.end();
    }
    if (plan.blocking) {
      io.out(plan.format === 'json' ? JSON.stringify(blockingReport(rec)) : blockingText(rec));
      return 0;
    }
    if (plan.requests) {
      const rows = requestTable(rec);
      const tracking = requestTracking(rec);
      if (plan.format === 'json') io.out(JSON.stringify({ requests: rows, ...(tracking === null ? {} : { tracking: requestTrackingJson(tracking) }) }));
      else {
        // The table's counts are a sample when the profiler listened part of the time: said after it.
        const sentence = requestTrackingSentence(tracking);
        io.out(requestTableText(rows) + (sentence === null ? '' : `\n${sentence}\n`));
      }
      return 0;
    }
    if (plan.gcs) io.out(plan.format === 'json' ? JSON.stringify(gcsReport(rec)) : gcsText(rec, plan.file).join('\n'));
    else io.out(plan.format === 'json' ? JSON.stringify(exceptionsReport(rec), null, 1) : exceptionsText(rec, plan.file).join('\n'));
    return 0;
  }
  let report: Report;
  try {
    report = await buildReport(plan, line);
  } finally {
    line.end();
  }
  if (plan.format === 'json') io.out(JSON.stringify(report, null, 1));
  else if (plan.format === 'csv') io.out(reportCsv(report));
  else io.out(reportText(report, io.columns ?? 100).join('\n'));
  return 0;
}
