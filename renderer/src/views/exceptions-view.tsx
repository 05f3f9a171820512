// Exceptions per type: how many were thrown (exact, those over the profiler's stack budget
// included), the methods where they started (each thrown object once, at its first throw's
// innermost managed frame, with its share of the type's exceptions), how often and along which
// path they were rethrown (structs/profile/exception-origins.ts) and their messages (the thrown objects' _message fields, most
// frequent first, with counts); the flame graph's window and threads. Picking a type focuses the
// flame graph's exceptions view on it (a double-click goes there).

import { useMemo, type ReactElement, type ReactNode } from 'react';
import type { ExceptionMessage, ExceptionTable } from '../../../structs/profile/event-tables.js';
import { exceptionRows, nextSort, throwerShare } from './event-table-rows.js';
import { SearchBox, WindowAndThreads } from './flame-toolbar.js';
import { formatCount, formatPercent } from './format.js';
import { NameText } from './name-text.js';
import { noMatch } from './empty-reasons.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

// Eleven columns fit 1280 px (about 95em) side by side: the minimums add up to 94em. The figures'
// columns are as wide as "100.0%" with the cell's padding (at 5em it read "100.…"), the counts'
// narrower, so the top throwing method (the column a reader looks at first) gets the room.
const COLUMNS: readonly VirtualColumn[] = [
  { key: 'type', title: 'Exception type', width: 'minmax(13em, 1.2fr)', sortable: true },
  { key: 'count', title: 'Thrown', width: '6.5em', numeric: true, sortable: true },
  { key: 'countPct', title: '%', width: '6em', numeric: true },
  { key: 'thrower', title: 'Top throwing method', width: 'minmax(13em, 1.6fr)', sortable: true },
  { key: 'throwerShare', title: 'Its share', width: '6em', numeric: true, sortable: true },
  { key: 'others', title: 'Other methods', width: 'minmax(9em, 0.7fr)' },
  { key: 'rethrows', title: 'Rethrows', width: '6.5em', numeric: true, sortable: true },
  { key: 'path', title: 'Rethrow path', width: 'minmax(10em, 1fr)' },
  { key: 'message', title: 'Top message', width: 'minmax(10em, 1fr)' },
  { key: 'messageCount', title: 'Times', width: '5em', numeric: true },
  { key: 'otherMessages', title: 'Other messages', width: 'minmax(9em, 1fr)' },
];

function messageText(m: ExceptionMessage): ReactNode {
  return m.text === null ? <span className="hint">(no message)</span> : <span>{m.text}</span>;
}

function exceptionCell(t: ExceptionTable, rows: Int32Array, r: number, key: string, widthPx: number): ReactNode {
  const row = t.rows[rows[r]];
  switch (key) {
    case 'type': return row.type === '' ? <span className="hint">(unnamed)</span> : <NameText name={row.type} widthPx={widthPx} kind="type" />;
    case 'count': return formatCount(row.count);
    case 'countPct': return formatPercent(t.count > 0 ? row.count / t.count : 0);
    case 'thrower': return row.methods.length === 0 ? <span className="hint">no stacks</span> : <NameText className="kind-0" name={row.methods[0].name} widthPx={widthPx} kind="method" />;
    case 'throwerShare': return row.methods.length === 0 ? '' : formatPercent(throwerShare(row));
    case 'others': return row.methods.slice(1).map((m) => `${m.name} (${formatCount(m.count)})`).join(', ');
    case 'rethrows': return formatCount(row.rethrows);
    case 'path': return row.paths.length === 0 || row.paths[0].sites.length === 0 ? '' : row.paths[0].sites.join(' > ');
    case 'message': return row.messages.length === 0 ? <span className="hint">no stacks</span> : messageText(row.messages[0]);
    case 'messageCount': return row.messages.length === 0 ? '' : formatCount(row.messages[0].count);
    case 'otherMessages': {
      const shown = row.messages.slice(1).map((m) => `${m.text ?? '(no message)'} (${formatCount(m.count)})`);
      const more = row.distinctMessages - row.messages.length;
      return [...shown, ...(more > 0 ? [`${more.toLocaleString()} more`] : [])].join(', ');
    }
    default: return null;
  }
}

export function ExceptionsView(): ReactElement {
  const ws = useWorkstation();
  const tables = useAppState((s) => s.eventTables);
  const sort = useAppState((s) => s.exceptionsSort);
  const search = useAppState((s) => s.flameOptions.search);
  const metric = useAppState((s) => s.flameOptions.metric);
  const focused = useAppState((s) => s.flameOptions.eventType);
  const table = tables?.exceptions ?? null;
  const rows = useMemo(() => (table === null ? new Int32Array(0) : exceptionRows(table.rows, search, sort)), [table, search, sort]);
  const selectedRow = useMemo(() => {
    if (table === null || focused === null || metric !== 'exceptions') return -1;
    for (let r = 0; r < rows.length; r++) if (table.rows[rows[r]].type === focused) return r;
    return -1;
  }, [table, rows, focused, metric]);
  const focus = (r: number): void => {
    if (table !== null) ws.view.focusEventType('exceptions', table.rows[rows[r]].type);
  };
  // Every column is cut at 1280 px: the selected row's type, methods, rethrow paths and messages whole.
  const details = (r: number): string => {
    if (table === null || r < 0 || r >= rows.length) return '';
    const row = table.rows[rows[r]];
    return [
      row.type,
      ...row.methods.map((m) => `  ${formatCount(m.count)}  ${m.name}`),
      ...row.paths.filter((p) => p.sites.length > 0).map((p) => `  ${formatCount(p.count)}  rethrown at ${p.sites.join(' > ')}`),
      ...row.messages.map((m) => `  ${formatCount(m.count)}  ${m.text === null ? '(no message)' : JSON.stringify(m.text)}`),
      row.distinctMessages > row.messages.length ? `  … ${(row.distinctMessages - row.messages.length).toLocaleString()} more messages` : '',
      row.count > row.stacked ? `  ${formatCount(row.count - row.stacked)} without a stack (over the stack budget)` : '',
    ].filter((l) => l !== '').join('\n');
  };
  const caption = table === null
    ? 'Waiting for the recording…'
    : table.rows.length === 0
      ? 'No exceptions in this recording.'
      : `${rows.length.toLocaleString()} of ${table.rows.length.toLocaleString()} exception types; ${table.count.toLocaleString()} thrown. A method is where exceptions were first thrown (a rethrow is not counted again); its share and a message's count are of the type's exceptions with a stack.`;
  return (
    <div className="functions-view exceptions-view">
      <div className="toolbar analysis-toolbar">
        <WindowAndThreads />
        <SearchBox />
      </div>
      <div className="hint" data-testid="exceptions-caption">{caption}</div>
      {/* Only with rows to pick: an empty table's own sentence says what would fill it. */}
      {rows.length > 0 && <div className="hint">Pick a type to show where it is thrown in the flame graph (double-click to go there).</div>}
      <VirtualTable
        testId="exceptions-table" rowCount={rows.length} columns={COLUMNS} selectedRow={selectedRow}
        cell={(r, key, width) => (table === null ? null : exceptionCell(table, rows, r, key, width))}
        onSelect={focus}
        onActivate={(r) => { focus(r); ws.view.setTab('flame'); }}
        rowTitle={details}
        sortKey={sort.column} sortDescending={sort.descending} onSort={(c) => ws.sorts.setExceptionsSort(nextSort(sort, c, ['type', 'thrower']))}
        empty={table === null ? 'Waiting for the recording…' : table.rows.length > 0 ? noMatch('exception type', search, table.rows.length) : 'No exceptions thrown while recorded, or exceptions were off: launch or attach with exceptions ticked (record --exceptions on).'}
      />
      {rows.length > 0 && (
        <div className="name-details exception-details" data-testid="exception-details">
          {selectedRow < 0 ? <span className="hint">Select a row to read its type, throwing methods, rethrow paths and messages whole here.</span> : details(selectedRow)}
        </div>
      )}
    </div>
  );
}
