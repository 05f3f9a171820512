// How `clrscope measure` prints what it measured: a table for people, JSON for programs.

import type { MeasuredMethod } from '../../structs/measure/measurements.js';

/** A duration in the unit that keeps 3 significant digits readable: 812 ns, 12.3 µs, 20.1 ms, 1.50 s. */
export function formatDuration(ns: number): string {
  if (ns < 1000) return `${Math.round(ns)} ns`;
  const [value, unit] = ns < 1e6 ? [ns / 1e3, 'µs'] : ns < 1e9 ? [ns / 1e6, 'ms'] : [ns / 1e9, 's'];
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit}`;
}

const count = (n: number): string => n.toLocaleString('en-US');

export function measureTable(methods: readonly MeasuredMethod[]): string {
  const measured = methods.filter((m) => m.state !== 'refused');
  const header = ['method', 'calls', 'exceptions', 'p50', 'p90', 'p99', 'max', 'total'];
  const rows = measured.map((m) => [
    `${m.name}${m.asyncSynchronousPart ? ' (sync part)' : ''}`,
    count(m.calls),
    count(m.exceptions),
    m.calls === 0 ? '–' : formatDuration(m.p50Ns),
    m.calls === 0 ? '–' : formatDuration(m.p90Ns),
    m.calls === 0 ? '–' : formatDuration(m.p99Ns),
    m.calls === 0 ? '–' : formatDuration(m.maxNs),
    m.calls === 0 ? '–' : formatDuration(m.totalNs),
  ]);
  const lines: string[] = [];
  if (rows.length > 0) {
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
    lines.push(line(header), ...rows.map(line));
  }
  for (const m of methods) {
    if (m.state === 'refused') lines.push(`not measured: ${m.name}: ${m.detail}`);
  }
  if (measured.some((m) => m.asyncSynchronousPart)) {
    lines.push('(sync part): an async method, timed up to its first await that does not complete at once');
  }
  const dropped = Math.max(0, ...methods.map((m) => m.droppedCalls));
  if (dropped > 0) lines.push(`${count(dropped)} calls could not be recorded (the profiler ran out of memory for them); the counts above are short by at most that`);
  return lines.join('\n');
}

export function measureJson(methods: readonly MeasuredMethod[]): string {
  return JSON.stringify(methods.map((m) => ({
    name: m.name, module: m.module, state: m.state, detail: m.detail, asyncSynchronousPart: m.asyncSynchronousPart, generic: m.generic,
    calls: m.calls, exceptions: m.exceptions, totalNs: m.totalNs, meanNs: m.meanNs, p50Ns: m.p50Ns, p90Ns: m.p90Ns, p99Ns: m.p99Ns, maxNs: m.maxNs,
    droppedCalls: m.droppedCalls, threads: m.threads,
  })));
}
