// `clrscope report`'s text: columns of fixed width with the function name last, cut from its
// start (the method name is the end) so every line fits the terminal's width.

import type { Report, ReportDiff, ReportDiffNode, ReportFunction, ReportNode, ReportSandwich, ReportSource } from '../../structs/analysis/report-model.js';
import { ownCostLine } from '../../structs/profile/own-cost.js';
import { describeFold } from '../../structs/analysis/fold-options.js';
import { SELF_DEFINITION } from '../../structs/analysis/self-time.js';

const MIN_WIDTH = 60;
// Trees deeper than this are drawn at this indentation, so names keep room.
const MAX_INDENT = 32;

function count(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A value in the report's unit, short: `1.23 s`, `45.6 ms`, `789 µs`, or a count. */
export function formatValue(v: number, unit: Report['unit']): string {
  if (unit === 'samples') return count(v);
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(2)} s`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)} ms`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(0)} µs`;
  return `${v.toFixed(0)} ns`;
}

function pct(v: number, total: number): string {
  return `${(total > 0 ? (100 * v) / total : 0).toFixed(1)}%`;
}

function fit(name: string, room: number): string {
  if (name.length <= room) return name;
  return room <= 1 ? name.slice(-Math.max(0, room)) : `…${name.slice(name.length - room + 1)}`;
}

function describeWindow(w: Report['window']): string {
  if (w.fromMs === null && w.toMs === null) return 'whole recording';
  const s = (ms: number | null): string => (ms === null ? '' : `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')} s`);
  return `window ${s(w.fromMs) || 'start'} to ${s(w.toMs) || 'end'}`;
}

function metricName(r: Report): string {
  return r.sampleType === 'samples' ? 'samples' : `${r.sampleType} time`;
}

/** The headline's metric, with the warning an estimated CPU time needs once. */
function headlineMetric(r: Report): string {
  return r.cpuEstimated === true ? `${metricName(r)} (estimated: counted from sampled threads, not measured)` : metricName(r);
}

function functionLines(r: Report, rows: ReportFunction[], width: number): string[] {
  const head = `${'self'.padStart(15)}  ${'total'.padStart(16)}  ${'samples'.padStart(8)}  function`;
  const lines = [head];
  const room = Math.max(10, width - 47);
  for (const f of rows) {
    const self = `${pct(f.self, r.totalValue).padStart(6)} ${formatValue(f.self, r.unit).padStart(9)}`;
    const total = `${pct(f.total, r.totalValue).padStart(6)} ${formatValue(f.total, r.unit).padStart(9)}`;
    lines.push(`${self}  ${total}  ${count(f.selfSamples).padStart(8)}  ${fit(f.name, room)}`);
  }
  return lines;
}

function treeLines(r: Report, root: ReportNode, width: number): string[] {
  const lines: string[] = [];
  const walk = (node: ReportNode, depth: number): void => {
    const indent = ' '.repeat(Math.min(depth, MAX_INDENT) * 2);
    const prefix = `${pct(node.total, r.totalValue).padStart(6)} ${formatValue(node.total, r.unit).padStart(9)}  `;
    lines.push(`${prefix}${indent}${fit(node.name, Math.max(10, width - prefix.length - indent.length))}`);
    for (const c of node.children) walk(c, depth + 1);
  };
  walk(root, 0);
  return lines;
}

function sandwichLines(r: Report, s: ReportSandwich, what: 'Callers' | 'Callees', width: number): string[] {
  return [
    `${what} of ${s.name}: self ${formatValue(s.self, r.unit)} (${pct(s.self, r.totalValue)}), total ${formatValue(s.total, r.unit)} (${pct(s.total, r.totalValue)}); nodes of at least ${r.minPercent}%`,
    ...treeLines(r, s.tree, width),
  ];
}

function diffLines(r: Report, d: ReportDiff, width: number): string[] {
  const share = d.normalize === 'share';
  const show = (v: number, total: number): string => (share ? pct(v, total) : formatValue(v, r.unit));
  const delta = (v: number): string => (share ? `${v >= 0 ? '+' : ''}${v.toFixed(1)}` : `${v >= 0 ? '+' : '-'}${formatValue(Math.abs(v), r.unit)}`);
  const lines = [
    `Diff: ${d.base} (before: ${formatValue(d.beforeTotal, r.unit)} in ${count(d.beforeSamples)} samples, ${describeWindow(d.baseWindow)})`
      + ` → ${r.file} (after: ${formatValue(d.afterTotal, r.unit)} in ${count(d.afterSamples)} samples); `
      + (share ? 'shares of each side\'s total, delta in percentage points' : `absolute ${metricName(r)}`),
    `${'self before'.padStart(11)} ${'after'.padStart(9)} ${'delta'.padStart(9)}  ${'total before'.padStart(12)} ${'after'.padStart(9)} ${'delta'.padStart(9)}  function`,
  ];
  const room = Math.max(10, width - 68);
  for (const f of d.functions) {
    lines.push(`${show(f.before.self, d.beforeTotal).padStart(11)} ${show(f.after.self, d.afterTotal).padStart(9)} ${delta(f.delta.self).padStart(9)}  `
      + `${show(f.before.total, d.beforeTotal).padStart(12)} ${show(f.after.total, d.afterTotal).padStart(9)} ${delta(f.delta.total).padStart(9)}  ${fit(f.name, room)}`);
  }
  if (d.tree !== undefined) {
    lines.push('', `Differential tree (before → after, delta), nodes of at least ${r.minPercent}% on either side`);
    const walk = (node: ReportDiffNode, depth: number): void => {
      const indent = ' '.repeat(Math.min(depth, MAX_INDENT) * 2);
      const prefix = `${show(node.before, d.beforeTotal).padStart(9)} → ${show(node.after, d.afterTotal).padStart(9)} ${delta(node.delta).padStart(9)}  `;
      lines.push(`${prefix}${indent}${fit(node.name, Math.max(10, width - prefix.length - indent.length))}`);
      for (const c of node.children) walk(c, depth + 1);
    };
    walk(d.tree, 0);
  }
  return lines;
}

/** `--source`: `file:line  self  total` per line of the function, the file's own lines by number. */
function sourceLines(r: Report, s: ReportSource, width: number): string[] {
  const out = [`Source lines of ${s.name}: self ${pct(s.self, r.totalValue)} ${formatValue(s.self, r.unit)}, total ${pct(s.total, r.totalValue)} ${formatValue(s.total, r.unit)}`];
  if (s.lines.length === 0) {
    out.push('  No line of it is known (its module has no portable PDB here, or the recording carries no IL offsets).');
    return out;
  }
  out.push(`${'self'.padStart(15)}  ${'total'.padStart(16)}  ${'samples'.padStart(8)}  file:line`);
  const room = Math.max(10, width - 47);
  for (const l of s.lines) {
    const self = `${pct(l.self, r.totalValue).padStart(6)} ${formatValue(l.self, r.unit).padStart(9)}`;
    const total = `${pct(l.total, r.totalValue).padStart(6)} ${formatValue(l.total, r.unit).padStart(9)}`;
    out.push(`${self}  ${total}  ${count(l.totalSamples).padStart(8)}  ${fit(`${l.file}:${l.line}`, room)}`);
  }
  if (s.unknownTotal > 0) out.push(`  ${formatValue(s.unknownTotal, r.unit)} of it at no known line.`);
  return out;
}

const NOTES_SHOWN = 3;

export function reportText(r: Report, columns: number): string[] {
  const width = Math.max(MIN_WIDTH, columns);
  const out = [
    `${r.file} (${r.format}): ${headlineMetric(r)} ${formatValue(r.totalValue, r.unit)} in ${count(r.sampleCount)} samples; ${describeWindow(r.window)}; folding: ${describeFold(r.fold)}`,
  ];
  if (r.gc !== undefined) {
    out.push(`Garbage collection ([GC] frames): ${pct(r.gc.total, r.totalValue)} of ${metricName(r)}, ${formatValue(r.gc.total, r.unit)} in ${count(r.gc.totalSamples)} samples`);
  }
  if (r.ownCost !== undefined) out.push(ownCostLine(r.ownCost));
  if (r.functions !== undefined) {
    out.push('', `Functions by self ${metricName(r)} (${r.functions.length} shown; ${SELF_DEFINITION})`, ...functionLines(r, r.functions, width));
  }
  if (r.callers !== undefined) out.push('', ...sandwichLines(r, r.callers, 'Callers', width));
  if (r.callees !== undefined) out.push('', ...sandwichLines(r, r.callees, 'Callees', width));
  if (r.source !== undefined) out.push('', ...sourceLines(r, r.source, width));
  if (r.tree !== undefined) out.push('', `Call tree, nodes of at least ${r.minPercent}%`, ...treeLines(r, r.tree, width));
  if (r.diff !== undefined) out.push('', ...diffLines(r, r.diff, width));
  // Source lines that could not be found are said once per module, after the tables.
  if (r.lineNotes !== undefined && r.lineNotes.length > 0) {
    // Framework assemblies ship without PDBs: a handful of sentences say enough, JSON has all.
    const shown = r.lineNotes.slice(0, NOTES_SHOWN).map((n) => `  ${n}`);
    if (r.lineNotes.length > NOTES_SHOWN) shown.push(`  … and ${r.lineNotes.length - NOTES_SHOWN} more (--format json lists them all).`);
    out.push('', `Source lines unknown for ${r.lineNotes.length} module(s):`, ...shown);
  }
  return out;
}
