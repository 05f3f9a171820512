// PerfView's "By name" and "Caller-Callee" in one view: every function with self and total
// (value, %, samples), sortable and filtered by the flame graph's search; the selected one's
// callers (above, growing up to the threads' entries) and callees (below) meet at it, and a
// double-click on any frame there selects that function instead.

import { useMemo, type ReactElement, type ReactNode } from 'react';
import { labelMatcher, parseSearch } from '../canvas/flame-layout.js';
import type { FunctionsTable } from '../../../structs/analysis/functions-table.js';
import type { FunctionsColumn, FunctionsSort } from '../state/app-state.js';
import type { FlatTree } from '../worker/protocol.js';
import { AnalysisToolbar } from './analysis-toolbar.js';
import { FoldBar } from './fold-bar.js';
import { formatCount, formatNs, formatPercent } from './format.js';
import { NameDetails, NameText } from './name-text.js';
import { noMatch, noSamples } from './empty-reasons.js';
import { fileBaseName } from '../../../structs/profile/frame-lines.js';
import { TreeCanvas } from './tree-canvas.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

export const FUNCTION_COLUMNS: readonly VirtualColumn[] = [
  { key: 'name', title: 'Function', width: 'minmax(20em, 1fr)', sortable: true, resizable: true },
  { key: 'source', title: 'Source', width: '11em' },
  { key: 'selfPct', title: 'Self %', width: '5em', numeric: true },
  { key: 'self', title: 'Self', width: '6.5em', numeric: true, sortable: true },
  { key: 'totalPct', title: 'Total %', width: '5.5em', numeric: true },
  { key: 'total', title: 'Total', width: '6.5em', numeric: true, sortable: true },
  { key: 'selfSamples', title: 'Self n', width: '5em', numeric: true, sortable: true },
  { key: 'totalSamples', title: 'Total n', width: '5.5em', numeric: true, sortable: true },
];

/** Rows of `t` that match the search, in the sort's order. */
export function visibleRows(t: FunctionsTable, search: string, sort: FunctionsSort): Int32Array {
  const out = searchRows(t.name, search);
  const dir = sort.descending ? -1 : 1;
  if (sort.column === 'name') out.sort((a, b) => dir * (t.name[a] < t.name[b] ? -1 : t.name[a] > t.name[b] ? 1 : 0));
  else if (!(sort.column === 'self' && sort.descending)) {
    // The table comes sorted by self, descending; other orders are a numeric sort (ties keep that order).
    const col = t[sort.column];
    out.sort((a, b) => dir * (col[a] - col[b]) || a - b);
  }
  return out;
}

/** Indexes of the names the search box's text matches (all of them when it is empty). */
export function searchRows(names: readonly string[], search: string): Int32Array {
  const query = parseSearch(search);
  if (query === null) return Int32Array.from(names, (_, i) => i);
  const matches = labelMatcher(query);
  const rows: number[] = [];
  for (let i = 0; i < names.length; i++) if (matches(names[i])) rows.push(i);
  return Int32Array.from(rows);
}

/** The text of one cell of the table: row `r` of the visible `rows`. */
export function functionCell(table: FunctionsTable, rows: Int32Array, r: number, key: string, sources: ReadonlyMap<string, string> = new Map(), widthPx = 0): ReactNode {
  const i = rows[r];
  const total = table.totalValue;
  switch (key) {
    case 'name': return <NameText className={`kind-${table.kind[i]}`} name={table.name[i]} widthPx={widthPx} kind="method" />;
    case 'source': {
      // The function's hottest line; the full path on hover.
      const place = sources.get(table.name[i]);
      return place === undefined ? null : <span title={place} data-testid="function-source">{fileBaseName(place)}</span>;
    }
    case 'selfPct': return formatPercent(total > 0 ? table.self[i] / total : 0);
    case 'self': return formatNs(table.self[i]);
    case 'totalPct': return formatPercent(total > 0 ? table.total[i] / total : 0);
    case 'total': return formatNs(table.total[i]);
    case 'selfSamples': return formatCount(table.selfSamples[i]);
    case 'totalSamples': return formatCount(table.totalSamples[i]);
    default: return null;
  }
}

function sortAfterClick(sort: FunctionsSort, column: string): FunctionsSort {
  const c = column as FunctionsColumn;
  if (sort.column === c) return { column: c, descending: !sort.descending };
  return { column: c, descending: c !== 'name' };
}

export function FunctionsView(): ReactElement {
  const ws = useWorkstation();
  const table = useAppState((s) => s.functions);
  const sort = useAppState((s) => s.functionsSort);
  const search = useAppState((s) => s.flameOptions.search);
  const selected = useAppState((s) => s.selectedFunction);
  const sandwich = useAppState((s) => s.sandwich);
  const sources = useAppState((s) => s.sources);
  const sampleCount = useAppState((s) => s.summary?.sampleCount);
  const live = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'recording');
  const rows = useMemo(() => (table === null ? new Int32Array(0) : visibleRows(table, search, sort)), [table, search, sort]);
  const selectedRow = useMemo(() => {
    if (table === null || selected === null) return -1;
    for (let r = 0; r < rows.length; r++) if (table.name[rows[r]] === selected) return r;
    return -1;
  }, [table, rows, selected]);

  const selectedModule = useMemo(() => {
    if (table === null || selected === null) return undefined;
    const i = table.name.indexOf(selected);
    return i < 0 ? undefined : table.module[i];
  }, [table, selected]);

  const cell = (r: number, key: string, width: number): ReactNode => (table === null ? null : functionCell(table, rows, r, key, sources, width));

  const pickNode = (tree: FlatTree | undefined, node: number): void => {
    if (tree !== undefined) ws.view.selectFunction(tree.labels[tree.label[node]]);
  };
  const nodeTip = (tree: FlatTree | undefined, node: number): ReactNode => {
    if (tree === undefined || sandwich === null) return null;
    return (
      <>
        <div className="tip-name">{tree.labels[tree.label[node]]}</div>
        <div>{formatNs(tree.total[node])} ({formatPercent(sandwich.totalValue > 0 ? tree.total[node] / sandwich.totalValue : 0)} of all), self {formatNs(tree.self[node])}</div>
        <div className="hint">double-click to select this function</div>
      </>
    );
  };

  return (
    <div className="functions-view">
      <AnalysisToolbar />
      <FoldBar />
      <div className="functions-body">
        <div className="functions-table">
          <div className="hint" data-testid="functions-caption">
            {table === null ? 'Waiting for samples…' : `${rows.length.toLocaleString()} of ${table.rowCount.toLocaleString()} functions; ${formatNs(table.totalValue)} in ${table.sampleCount.toLocaleString()} samples`}
          </div>
          <VirtualTable
            testId="functions-table" rowCount={rows.length} columns={FUNCTION_COLUMNS} cell={cell} selectedRow={selectedRow}
            onSelect={(r) => table !== null && ws.view.selectFunction(table.name[rows[r]])}
            onActivate={(r) => { if (table !== null) { ws.view.selectFunction(table.name[rows[r]]); ws.view.setTab('flame'); } }}
            rowTitle={(r) => (table === null ? '' : `${table.name[rows[r]]}${table.module[rows[r]] !== '' ? ` (${table.module[rows[r]]})` : ''}`)}
            sortKey={sort.column} sortDescending={sort.descending} onSort={(c) => ws.sorts.setFunctionsSort(sortAfterClick(sort, c))}
            empty={table === null ? 'Waiting for samples…' : table.rowCount > 0 ? noMatch('function', search, table.rowCount) : noSamples(sampleCount, live)}
          />
          <NameDetails name={selected} module={selectedModule} testId="functions-details" />
        </div>
        <div className="sandwich" data-testid="sandwich">
          {selected === null && <p className="empty">Select a function to see its callers and callees.</p>}
          {selected !== null && (
            <>
              <div className="sandwich-head" data-testid="sandwich-head">
                <strong>{selected}</strong>
                {sandwich !== null && <span className="hint"> self {formatNs(sandwich.self)}, total {formatNs(sandwich.total)} ({formatPercent(sandwich.totalValue > 0 ? sandwich.total / sandwich.totalValue : 0)})</span>}
                <button type="button" className="link" data-testid="show-source" onClick={() => ws.sources.showSource(selected)} title="The function's source file with the time per line">Source</button>
                <button type="button" className="link" onClick={() => ws.view.selectFunction(null)} aria-label="Clear the selection">✕</button>
              </div>
              <div className="sandwich-half"><span className="hint">Callers (up to each thread's entry)</span>
                <TreeCanvas
                  testId="sandwich-callers" tree={sandwich?.callers ?? null} inverted={false} empty="No samples through this function."
                  onPick={(n) => pickNode(sandwich?.callers, n)} tooltip={(n) => nodeTip(sandwich?.callers, n)}
                />
              </div>
              <div className="sandwich-half"><span className="hint">Callees</span>
                <TreeCanvas
                  testId="sandwich-callees" tree={sandwich?.callees ?? null} inverted empty="No samples through this function."
                  onPick={(n) => pickNode(sandwich?.callees, n)} tooltip={(n) => nodeTip(sandwich?.callees, n)}
                />
              </div>
            </>
          )}
        </div>
      </div>
    </div>
  );
}
