// The soak's report: per program, runs per mode, failures, differences from the bare run, sanity
// problems of the recordings, and what profiling cost (wall and CPU time, medians, against bare).

import { ALL_MODES, differences, failureOf, type Mode, type RunResult } from './soak-run.js';

type Profiled = Exclude<Mode, 'bare'>;
const PROFILED: readonly Profiled[] = ['launch', 'attach', 'detach'];

export interface ProgramSummary {
  program: string;
  runs: Record<Mode, number>;
  /** Profiled runs that crashed, hung or exited non-zero, with why. */
  failures: string[];
  /** Bare runs that failed (the program's own trouble: its round compares nothing). */
  bareFailures: string[];
  /** Profiled runs that did not fail but whose exit, output or files differ from the bare run of their round. */
  differences: string[];
  /** Profiled runs whose recording is not sane (no samples, a failure in the profiler's log). */
  recordingProblems: string[];
  wallMs: Record<Mode, number | undefined>;
  cpuMs: Record<Mode, number | undefined>;
  clrscopeCpuMs: Record<Profiled, number | undefined>;
  samples: Record<Profiled, number | undefined>;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function perMode<M extends Mode>(modes: readonly M[], f: (mode: M) => number | undefined): Record<M, number | undefined> {
  return Object.fromEntries(modes.map((m) => [m, f(m)])) as Record<M, number | undefined>;
}

export function summarize(results: readonly RunResult[]): ProgramSummary[] {
  const programs = [...new Set(results.map((r) => r.program))];
  return programs.map((program) => {
    const mine = results.filter((r) => r.program === program);
    const of = (mode: Mode): RunResult[] => mine.filter((r) => r.mode === mode);
    const sum: ProgramSummary = {
      program,
      runs: perMode(ALL_MODES, (m) => of(m).length) as Record<Mode, number>,
      failures: [], bareFailures: [], differences: [], recordingProblems: [],
      wallMs: perMode(ALL_MODES, (m) => median(of(m).map((r) => r.wallMs))),
      cpuMs: perMode(ALL_MODES, (m) => median(of(m).map((r) => r.cpuMs))),
      clrscopeCpuMs: perMode(PROFILED, (m) => median(of(m).flatMap((r) => r.clrscopeCpuMs ?? []))),
      samples: perMode(PROFILED, (m) => median(of(m).flatMap((r) => r.samples ?? []))),
    };
    for (const r of mine) {
      const where = `round ${r.round} ${r.mode}`;
      const failed = failureOf(r);
      if (r.mode === 'bare') {
        if (failed !== undefined) sum.bareFailures.push(`${where}: ${failed}`);
        continue;
      }
      // A failed run is a failure only; a difference is a run that ended as the bare run did yet printed or wrote something else.
      if (failed !== undefined) sum.failures.push(`${where}: ${failed}`);
      const bare = mine.find((b) => b.mode === 'bare' && b.round === r.round);
      if (failed === undefined && bare !== undefined && failureOf(bare) === undefined) {
        const d = differences(bare, r);
        if (d.length > 0) sum.differences.push(`${where}: ${d.join('; ')}`);
      }
      if (r.problems.length > 0) sum.recordingProblems.push(`${where}: ${r.problems.join('; ')}`);
    }
    return sum;
  });
}

const secs = (ms: number | undefined): string => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);
const ratio = (ms: number | undefined, base: number | undefined): string => (ms === undefined || base === undefined || base === 0 ? '' : ` (×${(ms / base).toFixed(2)})`);
const count = (n: number | undefined): string => (n === undefined ? '–' : Math.round(n).toLocaleString('en-US'));

/** The markdown table for scripts/bench/RESULTS.md: a column group per mode that ran. */
export function markdownTable(summaries: readonly ProgramSummary[]): string {
  const modes = ALL_MODES.filter((m) => summaries.some((s) => s.runs[m] > 0));
  const profiled = PROFILED.filter((m) => modes.includes(m));
  const lines = [
    `| program | runs ${modes.join(' / ')} | failures | differences | recording problems | wall: bare → ${profiled.join(', ')} | CPU: bare → ${profiled.join(', ')} | clrscope's own CPU: ${profiled.join(', ')} | samples: ${profiled.join(', ')} |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of summaries) {
    const cost = (v: Record<Mode, number | undefined>): string => `${secs(v.bare)} → ${profiled.map((m) => `${secs(v[m])}${ratio(v[m], v.bare)}`).join(', ')}`;
    lines.push(`| ${s.program} | ${modes.map((m) => s.runs[m]).join(' / ')} | ${s.failures.length}${s.bareFailures.length > 0 ? ` (bare: ${s.bareFailures.length})` : ''} | ${s.differences.length} | ${s.recordingProblems.length} | `
      + `${cost(s.wallMs)} | ${cost(s.cpuMs)} | ${profiled.map((m) => secs(s.clrscopeCpuMs[m])).join(', ')} | ${profiled.map((m) => count(s.samples[m])).join(', ')} |`);
  }
  const total = (f: (s: ProgramSummary) => number): number => summaries.reduce((a, s) => a + f(s), 0);
  lines.push(`| **all** | ${modes.map((m) => total((s) => s.runs[m])).join(' / ')} | ${total((s) => s.failures.length)} | ${total((s) => s.differences.length)} | ${total((s) => s.recordingProblems.length)} | | | | |`);
  return lines.join('\n');
}

/** The details behind the counts: every failure, difference and recording problem, one per line. */
export function detailLines(summaries: readonly ProgramSummary[]): string[] {
  const out: string[] = [];
  for (const s of summaries) {
    for (const f of s.bareFailures) out.push(`${s.program}: bare run failed, ${f}`);
    for (const f of s.failures) out.push(`${s.program}: FAILURE ${f}`);
    for (const d of s.differences) out.push(`${s.program}: DIFFERENCE ${d}`);
    for (const p of s.recordingProblems) out.push(`${s.program}: RECORDING ${p}`);
  }
  return out;
}
