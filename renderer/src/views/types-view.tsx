// Allocated bytes and objects per type (the runtime's type names, generic arguments included),
// estimated from the recording's allocation samples as the flame graph weighs them, and what the
// newest live set holds of each; the flame graph's window and threads. Picking a type focuses the
// flame graph's allocation view on it (a double-click goes there).

import { useMemo, type ReactElement, type ReactNode } from 'react';
import type { TypeTable } from '../../../structs/profile/event-tables.js';
import type { EventMetric } from '../../../structs/profile/event-metrics.js';
import { nextSort, typeRows } from './event-table-rows.js';
import { SearchBox, WindowAndThreads } from './flame-toolbar.js';
import { formatBytes, formatCount, formatPercent } from './format.js';
import { NameDetails, NameText } from './name-text.js';
import { noMatch } from './empty-reasons.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

const ALLOCATION_METRICS: readonly EventMetric[] = ['alloc-space', 'alloc-objects', 'alloc-samples', 'inuse-space', 'inuse-objects'];

const COLUMNS: readonly VirtualColumn[] = [
  { key: 'type', title: 'Type', width: 'minmax(24em, 1fr)', sortable: true, resizable: true },
  { key: 'bytes', title: 'Allocated', width: '7.5em', numeric: true, sortable: true },
  { key: 'bytesPct', title: '%', width: '6em', numeric: true },
  { key: 'objects', title: 'Objects', width: '7em', numeric: true, sortable: true },
  { key: 'samples', title: 'Samples', width: '6em', numeric: true, sortable: true },
];
const LIVE_COLUMNS: readonly VirtualColumn[] = [
  { key: 'liveBytes', title: 'Live', width: '7.5em', numeric: true, sortable: true },
  { key: 'liveObjects', title: 'Live objects', width: '8em', numeric: true, sortable: true },
];

function typeCell(t: TypeTable, rows: Int32Array, r: number, key: string, widthPx: number): ReactNode {
  const row = t.rows[rows[r]];
  switch (key) {
    case 'type': return row.type === '' ? <span className="hint">(unnamed)</span> : <NameText name={row.type} widthPx={widthPx} kind="type" />;
    case 'bytes': return formatBytes(row.bytes);
    case 'bytesPct': return formatPercent(t.bytes > 0 ? row.bytes / t.bytes : 0);
    case 'objects': return formatCount(Math.round(row.objects));
    case 'samples': return formatCount(row.samples);
    case 'liveBytes': return formatBytes(row.liveBytes);
    case 'liveObjects': return formatCount(Math.round(row.liveObjects));
    default: return null;
  }
}

export function TypesView(): ReactElement {
  const ws = useWorkstation();
  const tables = useAppState((s) => s.eventTables);
  const sort = useAppState((s) => s.typesSort);
  const search = useAppState((s) => s.flameOptions.search);
  const metric = useAppState((s) => s.flameOptions.metric);
  const focused = useAppState((s) => s.flameOptions.eventType);
  const table = tables?.types ?? null;
  const rows = useMemo(() => (table === null ? new Int32Array(0) : typeRows(table.rows, search, sort)), [table, search, sort]);
  const columns = table?.hasLive === true ? [...COLUMNS, ...LIVE_COLUMNS] : COLUMNS;
  const selectedRow = useMemo(() => {
    if (table === null || focused === null || !ALLOCATION_METRICS.includes(metric as EventMetric)) return -1;
    for (let r = 0; r < rows.length; r++) if (table.rows[rows[r]].type === focused) return r;
    return -1;
  }, [table, rows, focused, metric]);
  const focus = (r: number): void => {
    if (table !== null) ws.view.focusEventType('alloc-space', table.rows[rows[r]].type, ALLOCATION_METRICS);
  };
  const caption = table === null
    ? 'Waiting for the recording…'
    : table.rows.length === 0
      ? 'No allocation samples here: launch or attach with allocations ticked (or record --alloc on).'
      : `${rows.length.toLocaleString()} of ${table.rows.length.toLocaleString()} types; about ${formatBytes(table.bytes)} in ${formatCount(Math.round(table.objects))} objects, estimated from ${table.samples.toLocaleString()} samples`
        + (table.hasLive ? `; live heap ${formatBytes(table.liveBytes)}` : '');
  return (
    <div className="functions-view types-view">
      <div className="toolbar analysis-toolbar">
        <WindowAndThreads />
        <SearchBox />
      </div>
      <div className="hint" data-testid="types-caption">{caption}</div>
      {rows.length > 0 && <div className="hint">Pick a type to show where it is allocated in the flame graph (double-click to go there).</div>}
      <VirtualTable
        testId="types-table" rowCount={rows.length} columns={columns} selectedRow={selectedRow}
        cell={(r, key, width) => (table === null ? null : typeCell(table, rows, r, key, width))}
        onSelect={focus}
        onActivate={(r) => { focus(r); ws.view.setTab('flame'); }}
        rowTitle={(r) => (table === null ? '' : table.rows[rows[r]].type)}
        sortKey={sort.column} sortDescending={sort.descending} onSort={(c) => ws.sorts.setTypesSort(nextSort(sort, c, ['type']))}
        empty={table === null ? 'Waiting for the recording…' : table.rows.length > 0 ? noMatch('type', search, table.rows.length) : 'No allocation samples: launch or attach with allocations ticked (record --alloc on) to fill this table.'}
      />
      <NameDetails name={selectedRow >= 0 && table !== null ? table.rows[rows[selectedRow]].type : null} testId="types-details" />
    </div>
  );
}
