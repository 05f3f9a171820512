// Where each function spends its time in its source: the line of its frames with the most
// self value over the whole recording (the most total value when it has no self), as
// `path:line` by frame label. The functions table and the flame graph's tooltip show it
// beside a function's name.
//
// A live worker passes the per-stack sums it keeps anyway: asked for every sample, a recording
// that holds only its latest ones would decode and keep them all from then on (the page of a
// live session did so as soon as the first lines arrived, about 100 bytes a sample for good).

import { frameLabel } from '../profile/frame-label.js';
import type { FrameLines } from '../profile/frame-lines.js';
import type { Recording } from '../profile/recording.js';

/** The whole recording's CPU and wall time per stack (index = stack id). */
export interface StackTotals {
  cpu: Float64Array;
  wall: Float64Array;
}

export function hottestLines(rec: Recording, lines: FrameLines, totals?: StackTotals): Map<string, string> {
  const out = new Map<string, string>();
  if (!rec.hasFrames) return out;
  const byStack = weightPerStack(rec, totals);
  const self = new Map<number, number>();
  const total = new Map<number, number>();
  // Sums made before the newest stacks were first sampled end short of them: those weigh 0.
  for (let s = 0; s < Math.min(rec.stackCount, byStack.length); s++) {
    const w = byStack[s];
    if (w === 0) continue;
    const frames = rec.stackFrameIds(s);
    for (let i = 0; i < frames.length; i++) {
      if (i === 0) self.set(frames[0], (self.get(frames[0]) ?? 0) + w);
      total.set(frames[i], (total.get(frames[i]) ?? 0) + w);
    }
  }
  // Several frames (IL offsets) of a function may share a line: sum them per (function, line).
  const byLine = new Map<string, { name: string; self: number; total: number; place: string }>();
  for (const [frameId, t] of total) {
    const at = lines.of(frameId);
    if (at === null) continue;
    const fn = rec.functionInfo(rec.frameInfo(frameId)?.functionId ?? 0);
    if (fn === undefined) continue;
    const name = frameLabel(fn);
    const place = `${at.file}:${at.line}`;
    const key = `${name}\u0000${place}`;
    const sum = byLine.get(key) ?? { name, self: 0, total: 0, place };
    sum.self += self.get(frameId) ?? 0;
    sum.total += t;
    byLine.set(key, sum);
  }
  const best = new Map<string, { self: number; total: number; place: string }>();
  for (const l of byLine.values()) {
    const b = best.get(l.name);
    if (b === undefined || l.self > b.self || (l.self === b.self && l.total > b.total)) best.set(l.name, l);
  }
  for (const [name, b] of best) out.set(name, b.place);
  return out;
}

// CPU when the recording has it, else wall time, else sample counts (which only the samples give).
function weightPerStack(rec: Recording, totals: StackTotals | undefined): Float64Array {
  if (totals !== undefined) {
    if (totals.cpu.some((v) => v > 0)) return totals.cpu;
    if (totals.wall.some((v) => v > 0)) return totals.wall;
  }
  const cols = rec.sampleColumns();
  const values: Float64Array | null = cols.cpuNs.some((v) => v > 0) ? cols.cpuNs : cols.wallNs.some((v) => v > 0) ? cols.wallNs : null;
  const byStack = new Float64Array(rec.stackCount);
  for (let i = 0; i < cols.stackId.length; i++) byStack[cols.stackId[i]] += values === null ? 1 : values[i];
  return byStack;
}
