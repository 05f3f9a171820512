// The GC table beside the GC timeline: one row per collection from the runtime's GC events
// (structs/analysis/gc-stats.ts, PerfView's GCStats; `clrscope report --gcs` prints the same
// rows), and the line that says what one collection was, for a clicked pause or row.

import { useMemo, type ReactElement, type ReactNode } from 'react';
import type { GcRow } from '../../../structs/analysis/gc-stats.js';
import { formatBytes, formatMs } from './format.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

const COLUMNS: readonly VirtualColumn[] = [
  { key: 'number', title: 'GC #', width: '5em', numeric: true },
  { key: 'startNs', title: 'At', width: '7em', numeric: true },
  { key: 'generation', title: 'Gen', width: '3.5em', numeric: true },
  { key: 'type', title: 'Type', width: '7.5em' },
  { key: 'reason', title: 'Reason', width: 'minmax(9em, 1fr)' },
  { key: 'pauseMs', title: 'Pause', width: '6.5em', numeric: true },
  { key: 'heapBeforeBytes', title: 'Heap before', width: '7.5em', numeric: true },
  { key: 'heapAfterBytes', title: 'Heap after', width: '7.5em', numeric: true },
  { key: 'promotedBytes', title: 'Promoted', width: '7em', numeric: true },
  { key: 'compacting', title: 'Compacted', width: '7.5em' },
];

const bytes = (n: number | null): string => (n === null ? '–' : formatBytes(n));

/** "GC #12, gen 0 blocking (AllocSmall): heap 24.0 MB → 3.1 MB, 1.2 MB promoted, paused 1.3 ms". */
export function describeCollection(row: GcRow): string {
  const heap = row.heapBeforeBytes === null && row.heapAfterBytes === null ? '' : `: heap ${bytes(row.heapBeforeBytes)} → ${bytes(row.heapAfterBytes)}`;
  const promoted = row.promotedBytes === null ? '' : `, ${formatBytes(row.promotedBytes)} promoted`;
  return `GC #${row.number}, gen ${row.generation} ${row.type} (${row.reason})${heap}${promoted}, paused ${formatMs(row.pauseMs)}`;
}

function cell(row: GcRow, key: string): ReactNode {
  switch (key) {
    case 'number': return row.number;
    case 'startNs': return formatMs(row.startNs / 1e6);
    case 'generation': return row.generation;
    case 'type': return row.type;
    case 'reason': return row.reason;
    case 'pauseMs': return formatMs(row.pauseMs);
    case 'heapBeforeBytes': return bytes(row.heapBeforeBytes);
    case 'heapAfterBytes': return bytes(row.heapAfterBytes);
    case 'promotedBytes': return bytes(row.promotedBytes);
    case 'compacting': return row.compacting === null ? '–' : row.compacting ? 'yes' : 'no';
    default: return null;
  }
}

export function GcCollectionsTable({ gcs, picked, onPick, hasPauses }: { gcs: readonly GcRow[]; picked: GcRow | null; onPick(row: GcRow): void; hasPauses: boolean }): ReactElement {
  // By number, not identity: the table may be built anew as more of a live recording arrives.
  const selectedRow = useMemo(() => (picked === null ? -1 : gcs.findIndex((g) => g.number === picked.number)), [gcs, picked]);
  const empty = hasPauses
    ? 'This recording has GC pauses but not the runtime\'s GC events that give each collection\'s reason and heap sizes: a recording by clrscope\'s profiler has them, as does a .nettrace with the GC keyword (dotnet-trace\'s default).'
    : 'No collections yet: the table fills as the program collects garbage.';
  return (
    <div className="gc-collections">
      <VirtualTable
        testId="gc-collections" rowCount={gcs.length} columns={COLUMNS} selectedRow={selectedRow} scrollToRow={selectedRow}
        cell={(r, key) => cell(gcs[r], key)} onSelect={(r) => onPick(gcs[r])} rowTitle={(r) => describeCollection(gcs[r])}
        empty={empty}
      />
    </div>
  );
}
