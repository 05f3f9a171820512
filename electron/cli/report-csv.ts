// `clrscope report --format csv`: one table per run (RFC 4180 quoting), for spreadsheets and
// scripts. Trees become one row per node with its path (frames joined by ';', root first).

import type { Report, ReportDiffNode, ReportNode } from '../../structs/analysis/report-model.js';

function cell(v: string | number): string {
  const text = String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function row(values: (string | number)[]): string {
  return values.map(cell).join(',');
}

function treeRows(root: ReportNode, skipRoot: boolean): string[] {
  const rows = [row(['path', 'depth', 'self', 'total'])];
  const walk = (node: ReportNode, path: string, depth: number): void => {
    rows.push(row([path, depth, node.self, node.total]));
    for (const c of node.children) walk(c, `${path};${c.name}`, depth + 1);
  };
  if (skipRoot) for (const c of root.children) walk(c, c.name, 1);
  else walk(root, root.name, 0);
  return rows;
}

function diffTreeRows(root: ReportDiffNode): string[] {
  const rows = [row(['path', 'depth', 'before', 'after', 'delta'])];
  const walk = (node: ReportDiffNode, path: string, depth: number): void => {
    rows.push(row([path, depth, node.before, node.after, node.delta]));
    for (const c of node.children) walk(c, `${path};${c.name}`, depth + 1);
  };
  for (const c of root.children) walk(c, c.name, 1);
  return rows;
}

/** The one table the report asked for: a diff, a sandwich half, the call tree, else the functions. */
export function reportCsv(r: Report): string {
  let rows: string[];
  if (r.diff !== undefined && r.diff.tree !== undefined) {
    rows = diffTreeRows(r.diff.tree);
  } else if (r.diff !== undefined) {
    rows = [row(['name', 'kind', 'before_self', 'before_total', 'after_self', 'after_total', 'delta_self', 'delta_total'])];
    for (const f of r.diff.functions) rows.push(row([f.name, f.kind, f.before.self, f.before.total, f.after.self, f.after.total, f.delta.self, f.delta.total]));
  } else if (r.callers !== undefined) {
    rows = treeRows(r.callers.tree, false);
  } else if (r.callees !== undefined) {
    rows = treeRows(r.callees.tree, false);
  } else if (r.tree !== undefined) {
    rows = treeRows(r.tree, true);
  } else if (r.source !== undefined) {
    rows = [row(['file', 'line', 'self', 'self_percent', 'total', 'total_percent', 'self_samples', 'total_samples'])];
    for (const l of r.source.lines) rows.push(row([l.file, l.line, l.self, l.selfPercent, l.total, l.totalPercent, l.selfSamples, l.totalSamples]));
  } else {
    rows = [row(['name', 'module', 'kind', 'self', 'self_percent', 'total', 'total_percent', 'self_samples', 'total_samples'])];
    for (const f of r.functions ?? []) rows.push(row([f.name, f.module, f.kind, f.self, f.selfPercent, f.total, f.totalPercent, f.selfSamples, f.totalSamples]));
  }
  return rows.join('\n');
}
