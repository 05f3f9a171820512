// The Heap tab's types table: per type its objects, their own bytes and the bytes they keep alive;
// compared with another snapshot, the change in each. Picking a type asks for its paths from roots.

import { useMemo, type ReactElement, type ReactNode } from 'react';
import type { HeapTypeRow } from '../../../structs/api/contract.js';
import type { HeapTypesColumn } from '../state/app-state.js';
import { heapTypeRows, nextSort } from './event-table-rows.js';
import { formatBytes, formatCount } from './format.js';
import { NameText } from './name-text.js';
import { noMatch } from './empty-reasons.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

const COLUMNS: readonly VirtualColumn[] = [
  { key: 'type', title: 'Type', width: 'minmax(18em, 1fr)', sortable: true, resizable: true },
  { key: 'count', title: 'Objects', width: '7em', numeric: true, sortable: true },
  { key: 'bytes', title: 'Bytes', width: '7.5em', numeric: true, sortable: true },
  { key: 'retainedBytes', title: 'Retained', width: '7.5em', numeric: true, sortable: true },
];
const DELTA_COLUMNS: readonly VirtualColumn[] = [
  { key: 'countDelta', title: 'Objects Δ', width: '7em', numeric: true, sortable: true },
  { key: 'retainedDelta', title: 'Retained Δ', width: '8em', numeric: true, sortable: true },
];

function signed(text: string, n: number): string {
  return n > 0 ? `+${text}` : text;
}

function cell(row: HeapTypeRow, key: string, widthPx: number): ReactNode {
  switch (key) {
    case 'type': return <NameText name={row.type} widthPx={widthPx} kind="type" />;
    case 'count': return <span data-value={row.count}>{formatCount(row.count)}</span>;
    case 'bytes': return <span data-value={row.bytes}>{formatBytes(row.bytes)}</span>;
    case 'retainedBytes': return <span data-value={row.retainedBytes}>{formatBytes(row.retainedBytes)}</span>;
    case 'countDelta': return <span data-value={row.countDelta ?? 0}>{signed(formatCount(row.countDelta ?? 0), row.countDelta ?? 0)}</span>;
    case 'retainedDelta': return <span data-value={row.retainedDelta ?? 0}>{signed(formatBytes(row.retainedDelta ?? 0), row.retainedDelta ?? 0)}</span>;
    default: return null;
  }
}

export function HeapTypesTable(): ReactElement {
  const ws = useWorkstation();
  const types = useAppState((s) => s.heap.types);
  const sort = useAppState((s) => s.heap.sort);
  const filter = useAppState((s) => s.heap.filter);
  const selected = useAppState((s) => s.heap.selectedType);
  const compared = useAppState((s) => s.heap.baselineId !== null);
  const snapshotId = useAppState((s) => s.heap.snapshotId);
  const rows = useMemo(() => (types === null ? new Int32Array(0) : heapTypeRows(types, filter, sort)), [types, filter, sort]);
  const selectedRow = useMemo(() => {
    if (types === null || selected === null) return -1;
    for (let r = 0; r < rows.length; r++) if (types[rows[r]].type === selected) return r;
    return -1;
  }, [types, rows, selected]);
  const empty = snapshotId === null ? 'No snapshot shown.' : types === null ? 'Analysing the snapshot…'
    : types.length === 0 ? (compared ? 'No type changed.' : 'The snapshot holds no object.') : noMatch('type', filter, types.length);
  return (
    <VirtualTable
      testId="heap-types" rowCount={rows.length} columns={compared ? [...COLUMNS, ...DELTA_COLUMNS] : COLUMNS} selectedRow={selectedRow}
      cell={(r, key, width) => (types === null ? null : cell(types[rows[r]], key, width))}
      onSelect={(r) => { if (types !== null) ws.heap.selectType(types[rows[r]].type); }}
      rowTitle={(r) => (types === null ? '' : types[rows[r]].type)}
      sortKey={sort.column} sortDescending={sort.descending} onSort={(c) => ws.heap.setSort(nextSort<HeapTypesColumn>(sort, c, ['type']))}
      empty={empty}
    />
  );
}
