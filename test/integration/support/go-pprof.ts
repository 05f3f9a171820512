// The independent reader of our pprof files: Go's own pprof tool.

import { spawnSync } from 'node:child_process';

export function goAvailable(): boolean {
  return spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
}

/** `go tool pprof ARGS FILE`; throws with its stderr when it cannot read the file. */
export function goPprof(args: readonly string[], file: string): string {
  const r = spawnSync('go', ['tool', 'pprof', ...args, file], { encoding: 'utf8', env: { ...process.env, PPROF_TMPDIR: process.env.TMPDIR ?? '/tmp' } });
  if (r.status !== 0) throw new Error(`go tool pprof ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/**
 * The stacks of `go tool pprof -traces -sample_index=INDEX FILE`, root first, each with its weight
 * in nanoseconds (0 for a value in another unit); with the tool's text, for messages.
 */
export function pprofTraces(file: string, sampleIndex: string): { text: string; stacks: [string[], number][] } {
  const text = goPprof(['-traces', `-sample_index=${sampleIndex}`], file);
  const units: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };
  const stacks: [string[], number][] = [];
  for (const block of text.split(/^-+\+-+$/m).slice(1)) {
    // A block's label lines ("async stack: logical") are not frames.
    const lines = block.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^[\w ]+: /.test(l));
    const m = lines.length === 0 ? null : /^(\S+)\s+(.*)$/.exec(lines[0]);
    if (m === null) continue;
    const v = /^([\d.]+)(ns|us|µs|ms|s)$/.exec(m[1]);
    stacks.push([[m[2], ...lines.slice(1)].reverse(), v === null ? 0 : Number(v[1]) * units[v[2]]]);
  }
  return { text, stacks };
}

export interface TopRow {
  flat: number;
  cum: number;
  name: string;
}

function seconds(text: string): number {
  const m = /^([\d.]+)(ns|us|µs|ms|s|min|hrs)$/.exec(text);
  if (m === null) return Number.NaN;
  const scale: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, min: 60, hrs: 3600 };
  return Number(m[1]) * scale[m[2]];
}

/** Rows of `go tool pprof -top` with flat and cum in seconds (or in counts for -sample_index=samples). */
export function parseTop(text: string): TopRow[] {
  const rows: TopRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+)$/.exec(line);
    if (m === null) continue;
    const flat = /^\d+$/.test(m[1]) ? Number(m[1]) : seconds(m[1]);
    const cum = /^\d+$/.test(m[2]) ? Number(m[2]) : seconds(m[2]);
    if (Number.isNaN(flat) || Number.isNaN(cum)) continue;
    rows.push({ flat, cum, name: m[3].trim() });
  }
  return rows;
}
