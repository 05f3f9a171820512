// "Goto source", as PerfView users know it: the selected function's source file with the time
// of the current sample type beside each line (self, total, % of the recording), hot lines
// heat-coloured, scrolled to the hottest one, the lines outside the function dimmed. When the
// file cannot be shown (not on this machine, not UTF-8, too large) one sentence says so and
// the per-line figures are listed on their own.

import { useMemo, type ReactElement, type ReactNode } from 'react';
import { heatLevel, hottestLine, widenToBraces, type FunctionLines, type LineFigure } from '../../../structs/analysis/function-lines.js';
import type { SourceFile } from '../../../structs/api/contract.js';
import { fileBaseName } from '../../../structs/profile/frame-lines.js';
import { AnalysisToolbar } from './analysis-toolbar.js';
import { formatNs, formatPercent } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

const FILE_COLUMNS: readonly VirtualColumn[] = [
  { key: 'line', title: 'Line', width: '4.5em', numeric: true },
  { key: 'self', title: 'Self', width: '6.5em', numeric: true },
  { key: 'total', title: 'Total', width: '6.5em', numeric: true },
  { key: 'pct', title: 'Total %', width: '5.5em', numeric: true },
  { key: 'code', title: 'Source', width: 'minmax(0, 1fr)' },
];

const FIGURE_COLUMNS: readonly VirtualColumn[] = [
  { key: 'place', title: 'Line', width: 'minmax(12em, 1fr)' },
  { key: 'self', title: 'Self', width: '6.5em', numeric: true },
  { key: 'total', title: 'Total', width: '6.5em', numeric: true },
  { key: 'pct', title: 'Total %', width: '5.5em', numeric: true },
];

interface Shown {
  /** The file's lines, or null when only the figures are listed. */
  text: string[] | null;
  /** Line number (1-based) -> figures, for the shown file. */
  byLine: Map<number, LineFigure>;
  /** The figures listed when the text is not shown: every file's lines. */
  figures: LineFigure[];
  maxTotal: number;
  hottest: LineFigure | null;
  spans: SourceFile['spans'];
}

function shown(lines: FunctionLines, file: SourceFile | null): Shown {
  const byLine = new Map<number, LineFigure>();
  let maxTotal = 0;
  for (const l of lines.lines) {
    maxTotal = Math.max(maxTotal, l.total);
    if (l.file === lines.file) byLine.set(l.line, l);
  }
  const usable = file !== null && file.path === lines.file && file.text !== null ? file.text : null;
  const text = usable === null ? null : usable.split(/\r?\n/);
  return {
    text,
    byLine,
    figures: lines.lines,
    maxTotal,
    hottest: hottestLine(lines.lines, lines.file),
    spans: text === null || file === null ? [] : file.spans.map((s) => widenToBraces(text, s)),
  };
}

function inSpans(spans: SourceFile['spans'], line: number): boolean {
  return spans.length === 0 || spans.some((s) => line >= s.firstLine && line <= s.lastLine);
}

export function SourceView(): ReactElement {
  const ws = useWorkstation();
  const selected = useAppState((s) => s.selectedFunction);
  const lines = useAppState((s) => s.functionLines);
  const file = useAppState((s) => s.sourceFile);
  const view = useMemo(() => (lines === null ? null : shown(lines, file)), [lines, file]);

  if (selected === null) {
    return (
      <div className="source-view">
        <AnalysisToolbar />
        <p className="empty" data-testid="source-empty">Select a function in the flame graph, the functions table or its callers and callees, and pick Source.</p>
      </div>
    );
  }
  const pct = (v: number): string => formatPercent(lines !== null && lines.totalValue > 0 ? v / lines.totalValue : 0);
  const heat = (l: LineFigure | undefined): string => (l === undefined || view === null ? '' : `heat-${heatLevel(l.total, view.maxTotal)}`);

  let body: ReactNode;
  if (lines === null || view === null) {
    body = <p className="empty">Computing the time per line…</p>;
  } else if (lines.file === null) {
    body = (
      <p className="empty" data-testid="source-no-lines">
        No source line is known for {lines.name}: its module has no portable PDB here, or the recording carries no IL offsets.
      </p>
    );
  } else if (view.text !== null) {
    const text = view.text;
    const cell = (r: number, key: string): ReactNode => {
      const l = view.byLine.get(r + 1);
      switch (key) {
        case 'line': return <span>{r + 1}</span>;
        case 'self': return l === undefined || l.self === 0 ? null : formatNs(l.self);
        case 'total': return l === undefined ? null : formatNs(l.total);
        case 'pct': return l === undefined ? null : pct(l.total);
        case 'code': return <span className="code-text">{text[r]}</span>;
        default: return null;
      }
    };
    body = (
      <VirtualTable
        testId="source-file" rowCount={text.length} columns={FILE_COLUMNS} cell={cell}
        rowClass={(r) => `${heat(view.byLine.get(r + 1))}${inSpans(view.spans, r + 1) ? '' : ' outside'}${view.hottest?.line === r + 1 ? ' hottest' : ''}`}
        scrollToRow={view.hottest === null ? -1 : view.hottest.line - 1}
      />
    );
  } else {
    const figures = view.figures;
    const cell = (r: number, key: string): ReactNode => {
      const l = figures[r];
      switch (key) {
        case 'place': return <span title={l.file}>{fileBaseName(l.file)}:{l.line}</span>;
        case 'self': return l.self === 0 ? null : formatNs(l.self);
        case 'total': return formatNs(l.total);
        case 'pct': return pct(l.total);
        default: return null;
      }
    };
    body = (
      <VirtualTable
        testId="source-figures" rowCount={figures.length} columns={FIGURE_COLUMNS} cell={cell}
        rowClass={(r) => `${heat(figures[r])}${figures[r] === view.hottest ? ' hottest' : ''}`}
        scrollToRow={view.hottest === null ? -1 : figures.indexOf(view.hottest)}
      />
    );
  }

  return (
    <div className="source-view">
      <AnalysisToolbar />
      <div className="sandwich-head" data-testid="source-head">
        <strong>{selected}</strong>
        {lines !== null && (
          <span className="hint"> self {formatNs(lines.self)} ({pct(lines.self)}), total {formatNs(lines.total)} ({pct(lines.total)})</span>
        )}
        <button type="button" className="link" onClick={() => ws.view.setTab('functions')} aria-label="Back to the functions table">Functions</button>
      </div>
      {lines?.file != null && <div className="hint source-path" data-testid="source-path" title={lines.file}>{lines.file}</div>}
      {lines?.file != null && file === null && <p className="hint">Reading the file…</p>}
      {lines?.file != null && file !== null && file.path === lines.file && file.message !== null && <p className="source-message" data-testid="source-message">{file.message}</p>}
      {lines !== null && lines.unknownTotal > 0 && (
        <p className="hint" data-testid="source-unknown">{formatNs(lines.unknownTotal)} of this function ran where no line is known (code without a sequence point, or a module without its PDB).</p>
      )}
      {body}
    </div>
  );
}
