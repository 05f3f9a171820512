// The soak's report: per program, runs per mode, failures, differences from the bare run, sanity
// problems of the recordings, and what profiling cost (wall and CPU time, medians, against bare).

import { differences, failureOf, type Mode, type RunResult } from './soak-run.js';

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
  clrscopeCpuMs: Record<'launch' | 'attach', number | undefined>;
  samples: Record<'launch' | 'attach', number | undefined>;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function summarize(results: readonly RunResult[]): ProgramSummary[] {
  const programs = [...new Set(results.map((r) => r.program))];
  return programs.map((program) => {
    const mine = results.filter((r) => r.program === program);
    const of = (mode: Mode): RunResult[] => mine.filter((r) => r.mode === mode);
    const sum: ProgramSummary = {
      program,
      runs: { bare: of('bare').length, launch: of('launch').length, attach: of('attach').length },
      failures: [], bareFailures: [], differences: [], recordingProblems: [],
      wallMs: { bare: median(of('bare').map((r) => r.wallMs)), launch: median(of('launch').map((r) => r.wallMs)), attach: median(of('attach').map((r) => r.wallMs)) },
      cpuMs: { bare: median(of('bare').map((r) => r.cpuMs)), launch: median(of('launch').map((r) => r.cpuMs)), attach: median(of('attach').map((r) => r.cpuMs)) },
      clrscopeCpuMs: { launch: median(of('launch').flatMap((r) => r.clrscopeCpuMs ?? [])), attach: median(of('attach').flatMap((r) => r.clrscopeCpuMs ?? [])) },
      samples: { launch: median(of('launch').flatMap((r) => r.samples ?? [])), attach: median(of('attach').flatMap((r) => r.samples ?? [])) },
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

/** The markdown table for scripts/bench/RESULTS.md. */
export function markdownTable(summaries: readonly ProgramSummary[]): string {
  const lines = [
    '| program | runs bare / launch / attach | failures | differences | recording problems | wall: bare → launch, attach | CPU: bare → launch, attach | clrscope\'s own CPU: launch, attach | samples: launch, attach |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of summaries) {
    lines.push(`| ${s.program} | ${s.runs.bare} / ${s.runs.launch} / ${s.runs.attach} | ${s.failures.length}${s.bareFailures.length > 0 ? ` (bare: ${s.bareFailures.length})` : ''} | ${s.differences.length} | ${s.recordingProblems.length} | `
      + `${secs(s.wallMs.bare)} → ${secs(s.wallMs.launch)}${ratio(s.wallMs.launch, s.wallMs.bare)}, ${secs(s.wallMs.attach)}${ratio(s.wallMs.attach, s.wallMs.bare)} | `
      + `${secs(s.cpuMs.bare)} → ${secs(s.cpuMs.launch)}${ratio(s.cpuMs.launch, s.cpuMs.bare)}, ${secs(s.cpuMs.attach)}${ratio(s.cpuMs.attach, s.cpuMs.bare)} | `
      + `${secs(s.clrscopeCpuMs.launch)}, ${secs(s.clrscopeCpuMs.attach)} | ${count(s.samples.launch)}, ${count(s.samples.attach)} |`);
  }
  const total = (f: (s: ProgramSummary) => number): number => summaries.reduce((a, s) => a + f(s), 0);
  lines.push(`| **all** | ${total((s) => s.runs.bare)} / ${total((s) => s.runs.launch)} / ${total((s) => s.runs.attach)} | ${total((s) => s.failures.length)} | ${total((s) => s.differences.length)} | ${total((s) => s.recordingProblems.length)} | | | | |`);
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
