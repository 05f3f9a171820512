// The end-of-run report `clrscope record` prints to stderr.

import type { Recording, SampleMetric } from '../../structs/profile/recording.js';
import { topMethods } from '../../structs/profile/top-methods.js';
import { SELF_DEFINITION, selfTimeRows } from '../../structs/analysis/self-time.js';
import { DEFAULT_FOLD, describeFold } from '../../structs/analysis/fold-options.js';
import type { StackThreadSums } from '../../structs/profile/aggregate.js';
import { eventMetricsPresent, totalsByLabel, type EventMetric } from '../../structs/profile/event-metrics.js';
import { exceptionTable, type ExceptionRow } from '../../structs/profile/event-tables.js';
import { exceptionOrigins, pathText, thrownExceptions } from '../../structs/profile/exception-origins.js';
import { pauseStats, summarizePauses, type PauseStats } from '../../structs/profile/pause-summary.js';
import { isInducedRow, recordingGcStats, type GcStats } from '../../structs/analysis/gc-stats.js';
import { stacklessCpuNs, STACKLESS_CPU_PREFIX } from '../../structs/profile/stackless-cpu.js';
import { HelloFlags, SampleFlags } from '../../structs/wire/records.js';
import { connectionLostSentence } from '../../structs/profile/stream-end.js';
import { ownCostLine } from '../../structs/profile/own-cost.js';
import { count, counted } from '../../structs/text/count.js';

/** The one line that says a recording's CPU values are estimates (HELLO flag ApproximateCpu). */
export const APPROXIMATE_CPU_LINE = 'clrscope: CPU time is approximate: the runtime\'s sample profiler took these samples, and a sample counts as CPU when its thread was in managed code (time in native code counts as none).';

function seconds(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  return `${(ns / 1e6).toFixed(1)} ms`;
}


export interface SampleCounts {
  samples: number;
  cpu: number;
  wall: number;
  dropped: number;
  droppedDetail: string;
}

/** `summed`: the samples' sums when `rec` keeps none (read back from a spool summed). */
export function sampleCounts(rec: Recording, summed?: StackThreadSums): SampleCounts {
  let cpu = summed?.cpuSamples ?? 0;
  let wall = summed?.wallSamples ?? 0;
  if (summed === undefined) {
    rec.forEachSample((_i, _mono, _thread, _stack, _cpuNs, _wallNs, flags) => {
      if (flags & SampleFlags.Cpu) cpu++;
      if (flags & SampleFlags.Wall) wall++;
    });
  }
  const s = rec.stats;
  const parts: string[] = [];
  let dropped = 0;
  if (s !== undefined) {
    // "reason: count", so one rule reads right for 1 and for 8 ("8 thread did not answer" did not).
    const detail: [number, string][] = [
      [s.droppedRingFull, 'capture slots full'],
      [s.droppedBufferFull, 'reader behind'],
      [s.droppedWatchdog, 'thread did not answer'],
      [s.droppedOther, 'thread gone or stack unknown'],
    ];
    for (const [n, why] of detail) {
      dropped += n;
      if (n > 0) parts.push(`${why}: ${count(n)}`);
    }
  }
  return { samples: rec.sampleCount, cpu, wall, dropped, droppedDetail: parts.join(', ') };
}

/** The top of `clrscope report`'s functions table for the same file, by the same function (structs/analysis/self-time.ts). */
function table(rec: Recording, metric: SampleMetric, title: string, summed?: StackThreadSums): string[] {
  const sums = summed === undefined ? undefined : { value: summed.byStack(metric, rec.stackCount), count: summed.samplesByStack(rec.stackCount) };
  const { rows } = selfTimeRows(rec, metric, 10, sums);
  if (rows.length === 0) return [`${title}: no samples.`];
  const lines = [`${title} (${SELF_DEFINITION}; folding: ${describeFold(DEFAULT_FOLD)}, as in clrscope report):`, '   self%        self   total%  function'];
  for (const r of rows) {
    const self = seconds(r.self).padStart(11);
    lines.push(`  ${r.selfPercent.toFixed(1).padStart(5)}% ${self}  ${r.totalPercent.toFixed(1).padStart(6)}%  ${r.name}`);
  }
  return lines;
}

function pauseLine(label: string, p: PauseStats): string {
  return `  ${label.padEnd(5)} ${String(p.count).padStart(6)}   p50 ${seconds(p.p50Ns).padStart(9)}   p90 ${seconds(p.p90Ns).padStart(9)}   p99 ${seconds(p.p99Ns).padStart(9)}   max ${seconds(p.maxNs).padStart(9)}   total ${seconds(p.totalNs).padStart(9)}`;
}

/** COR_PRF_SUSPEND_FOR_GC_PREP: a background GC's own later suspensions. */
const SUSPEND_FOR_GC_PREP = 7;

/**
 * GC pauses per generation from the runtime's own GC events (one per collection the runtime
 * counts, report --gcs): the suspensions left over are the ones no GC was in, a background GC's
 * GC-preparation suspensions being part of its pause.
 */
function formatGcRows(rec: Recording, stats: GcStats): string[] {
  const rows = stats.rows;
  const ns = (ms: number): number => Math.round(ms * 1e6);
  const gc = pauseStats(rows.map((r) => ns(r.pauseMs)));
  const background = rows.filter((r) => r.type === 'background').length;
  const lines = [`GC pauses: ${count(rows.length)} (${count(rows.filter(isInducedRow).length)} induced, ${count(background)} background), ${seconds(gc.totalNs)} paused in all:`];
  for (let g = 0; g <= 2; g++) {
    const p = pauseStats(rows.filter((r) => r.generation === g).map((r) => ns(r.pauseMs)));
    if (p.count > 0) lines.push(pauseLine(`gen${g}`, p));
  }
  if (stats.missing > 0) {
    const range = rows[0].pid === undefined ? `GC numbers ${rows[0].number} to ${rows[rows.length - 1].number}: ` : '';
    lines.push(`${range}${count(stats.missing)} of them came without their events (lost).`);
  }
  const other = rec.suspensions().filter((s) => s.generation < 0 && !(background > 0 && s.reason === SUSPEND_FOR_GC_PREP));
  if (other.length > 0) lines.push(`Other runtime suspensions (no GC): ${count(other.length)}, ${seconds(other.reduce((a, s) => a + s.durationNs, 0))} in all.`);
  return lines;
}

/** GC pauses per generation, measured from the runtime's suspend/resume notifications. */
export function formatPauses(rec: Recording): string[] {
  const stats = recordingGcStats(rec);
  if (stats.rows.length > 0) return formatGcRows(rec, stats);
  const sum = summarizePauses(rec.suspensions());
  if (sum.gc.count === 0 && sum.other.count === 0) return ['GC pauses: none.'];
  const lines = [`GC pauses: ${count(sum.gc.count)} (${count(sum.induced)} induced), ${seconds(sum.gc.totalNs)} paused in all:`];
  sum.byGeneration.forEach((p, g) => {
    if (p.count > 0) lines.push(pauseLine(`gen${g}`, p));
  });
  if (sum.other.count > 0) lines.push(`Other runtime suspensions (no GC): ${count(sum.other.count)}, ${seconds(sum.other.totalNs)} in all.`);
  return lines;
}

/** What a recording whose profiler lost its signal handler `afterNs` into it says about that. */
export function signalLostLine(afterNs: number): string {
  return `clrscope: CPU and wall sampling stopped ${seconds(Math.max(0, afterNs))} in: a library in the program took over clrscope's signal (SIGURG, or CLRSCOPE_SIGNAL's); events, GC pauses and counters were still recorded. Start the program with CLRSCOPE_SIGNAL set to a free real-time signal (e.g. 42) to sample it.`;
}

/** clrscope's own measured cost in the program, and the collector's (this process) outside it. */
export function costLines(rec: Recording, collectorCpuNs?: number): string[] {
  const cost = rec.stats?.cost;
  const collector = collectorCpuNs !== undefined ? `; the collector (this command) used ${seconds(collectorCpuNs)} of CPU outside the program` : '';
  if (cost !== undefined) return [`${ownCostLine(cost).slice(0, -1)}${collector}.`];
  return collector !== '' ? [`clrscope: the collector (this command) used ${seconds(collectorCpuNs ?? 0)} of CPU outside the program.`] : [];
}

/** What a recording with CPU no capture brought in says about it. */
export function stacklessCpuLine(ns: number): string {
  return `clrscope: ${seconds(ns)} of CPU came without a fresh stack (threads that blocked clrscope's signal, or captures lost): it is charged to each thread's last stack under a "${STACKLESS_CPU_PREFIX}: …]" frame.`;
}

/**
 * `stoppedHere`: the recording was ended by clrscope (duration, Ctrl-C, detach), so a missing END
 * is expected. `summed`: the samples summed per stack and thread, when `rec` keeps none.
 * `hostPid`: the pid clrscope was given, when the profiler says another (the process's pid in
 * its container): both are said.
 */
export function formatSummary(rec: Recording, stoppedHere = false, summed?: StackThreadSums, collectorCpuNs?: number, hostPid?: number): string {
  const meta = rec.meta;
  const c = sampleCounts(rec, summed);
  const lines: string[] = [];
  const runtime = meta !== undefined && meta.runtimeVersion !== '' ? ` (.NET ${meta.runtimeVersion})` : '';
  // A recording of several processes (record --children) counts them all; its meta is the launched one's.
  const processes = rec.processes().length;
  const pid = hostPid !== undefined && meta !== undefined && meta.pid !== hostPid ? `${hostPid} (pid ${meta.pid} in its container)` : `${meta?.pid ?? '?'}`;
  const who = processes > 0 ? `pid ${pid} and ${counted(processes - 1, 'child process', 'child processes')}` : `pid ${pid}`;
  lines.push(`clrscope: recorded ${who}${runtime}: ${counted(c.samples, 'sample')} (${count(c.cpu)} CPU, ${count(c.wall)} wall), ${count(c.dropped)} dropped${c.droppedDetail !== '' ? ` (${c.droppedDetail})` : ''}.`);
  lines.push(...costLines(rec, collectorCpuNs));
  const lost = rec.stats?.signalLostMono;
  if (lost !== undefined) lines.push(signalLostLine(lost - (meta?.startMono ?? lost)));
  const stackless = stacklessCpuNs(rec, summed?.byStack('cpu', rec.stackCount));
  if (stackless > 0) lines.push(stacklessCpuLine(stackless));
  if (rec.cut && !stoppedHere) lines.push('clrscope: the stream ended without its END record (the process died or the connection broke); everything received is kept.');
  const lostConnection = connectionLostSentence(rec.end);
  if (lostConnection !== undefined) lines.push(`clrscope: ${lostConnection.charAt(0).toLowerCase()}${lostConnection.slice(1)}`);
  if (meta?.approximateCpu === true) lines.push(APPROXIMATE_CPU_LINE);
  lines.push(...table(rec, 'cpu', 'Top methods by CPU time', summed));
  if (meta === undefined || (meta.flags & HelloFlags.Wall) !== 0) lines.push(...table(rec, 'wall', 'Top methods by wall time', summed));
  lines.push(...formatPauses(rec));
  lines.push(...formatEvents(rec));
  return lines.join('\n');
}

function bytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${Math.round(n)} B`;
}

/** The line under an exception type with its most frequent message, of its exceptions with a stack. */
function topMessageLine(row: ExceptionRow | undefined): string | undefined {
  const top = row?.messages[0];
  if (row === undefined || top === undefined) return undefined;
  const of = `${count(top.count)} of ${count(row.stacked)}${row.distinctMessages > 1 ? `; ${count(row.distinctMessages)} distinct` : ''}`;
  return `${' '.repeat(17)}${top.text === null ? 'no message' : `message ${JSON.stringify(top.text)}`} (${of})`;
}

function eventTables(rec: Recording, metric: EventMetric, show: (v: number) => string, what: string): string[] {
  const lines: string[] = [];
  const types = totalsByLabel(rec, metric).slice(0, 5);
  if (types.length > 0 && types.some((t) => t.label !== '')) {
    lines.push(`  top ${what}:`);
    // A recording without any message (messages off, an older profiler, an import) says nothing of them.
    const messages = metric === 'exceptions' && rec.events().messageId.some((id) => id !== 0);
    const exceptions = messages ? new Map(exceptionTable(rec, { threadIds: null }).rows.map((r) => [r.type, r])) : undefined;
    for (const t of types) {
      lines.push(`    ${show(t.value).padStart(11)}  ${t.label === '' ? '(unnamed)' : t.label}`);
      const message = exceptions === undefined ? undefined : topMessageLine(exceptions.get(t.label));
      if (message !== undefined) lines.push(message);
    }
  }
  if (metric === 'exceptions') {
    lines.push(...originLines(rec));
    return lines;
  }
  const methods = topMethods(rec, metric, 5);
  if (methods.length > 0) {
    lines.push('  top methods (innermost managed frame):');
    for (const m of methods) lines.push(`    ${show(m.selfValue).padStart(11)}  ${m.name}`);
  }
  return lines;
}

/** Where the exceptions started, each thrown object once, with its most taken rethrow path. */
function originLines(rec: Recording): string[] {
  const origins = exceptionOrigins(rec, thrownExceptions(rec)).slice(0, 5);
  if (origins.length === 0) return [];
  const lines = ['  top throwing methods (where each exception was first thrown; its rethrows are not counted again):'];
  for (const o of origins) {
    lines.push(`    ${count(o.exceptions).padStart(11)}  ${o.method}`);
    const path = o.paths[0];
    if (path !== undefined && (path.sites.length > 0 || o.paths.length > 1)) {
      const more = o.paths.length > 1 ? `; ${counted(o.paths.length - 1, 'other path', 'other paths')}` : '';
      lines.push(`${' '.repeat(17)}${pathText(path)} (${count(path.count)} of ${count(o.exceptions)}${more})`);
    }
  }
  return lines;
}

/** `Exceptions: N thrown.`, saying how many were rethrows when some were. */
function exceptionsLine(rec: Recording, total: number): string {
  const thrown = thrownExceptions(rec);
  const rethrows = thrown.reduce((n, x) => n + x.rethrownAt.length, 0);
  if (rethrows === 0) return `Exceptions: ${count(total)} thrown.`;
  return `Exceptions: ${count(total)} thrown: ${counted(thrown.length, 'exception')} with a stack and ${counted(rethrows, 'rethrow')} of them.`;
}

/** Exceptions, lock waits and allocations, each when the recording has such events. */
export function formatEvents(rec: Recording): string[] {
  const present = new Set(eventMetricsPresent(rec));
  const lines: string[] = [];
  if (present.has('exceptions')) {
    const total = totalsByLabel(rec, 'exceptions').reduce((n, t) => n + t.value, 0);
    lines.push(exceptionsLine(rec, total));
    lines.push(...eventTables(rec, 'exceptions', (v) => count(v), 'exception types'));
  }
  if (present.has('delay')) {
    const waits = totalsByLabel(rec, 'contentions').reduce((n, t) => n + t.value, 0);
    const delay = totalsByLabel(rec, 'delay').reduce((n, t) => n + t.value, 0);
    lines.push(`Lock contention: ${counted(waits, 'wait')}, ${seconds(delay)} waited in all.`);
    lines.push(...eventTables(rec, 'delay', seconds, 'lock types'));
  }
  if (present.has('alloc-space')) {
    const space = totalsByLabel(rec, 'alloc-space').reduce((n, t) => n + t.value, 0);
    const samples = totalsByLabel(rec, 'alloc-samples').reduce((n, t) => n + t.value, 0);
    lines.push(`Allocations: about ${bytes(space)} allocated (estimated from ${counted(samples, 'sample')}).`);
    lines.push(...eventTables(rec, 'alloc-space', bytes, 'allocated types'));
  }
  if (present.has('inuse-space')) {
    const space = totalsByLabel(rec, 'inuse-space').reduce((n, t) => n + t.value, 0);
    const objects = totalsByLabel(rec, 'inuse-objects').reduce((n, t) => n + t.value, 0);
    lines.push(`Live heap after the last GC: about ${bytes(space)} in ${counted(Math.round(objects), 'object')} (sampled allocations still alive).`);
    lines.push(...eventTables(rec, 'inuse-space', bytes, 'live types'));
  }
  return lines;
}
