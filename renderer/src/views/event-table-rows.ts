// The rows the type, heap types and exceptions tables show: those whose type name the search box matches,
// in the order the user picked (ties keep the worker's order: largest first).

import type { ExceptionRow, TypeRow } from '../../../structs/profile/event-tables.js';
import type { HeapTypeRow } from '../../../structs/api/contract.js';
import type { ExceptionsColumn, HeapTypesColumn, TableSort, TypesColumn } from '../state/app-state.js';
import { searchRows } from './functions-view.js';

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Share of an exception type's exceptions with a stack that started in its top method (0 without stacks). */
export function throwerShare(row: ExceptionRow): number {
  return row.stacked > 0 && row.methods.length > 0 ? row.methods[0].count / row.stacked : 0;
}

function sorted<R>(rows: readonly R[], search: string, name: (r: R) => string, descending: boolean, compare: (a: R, b: R) => number): Int32Array {
  const out = searchRows(rows.map(name), search);
  const dir = descending ? -1 : 1;
  return out.sort((a, b) => dir * compare(rows[a], rows[b]) || a - b);
}

export function typeRows(rows: readonly TypeRow[], search: string, sort: TableSort<TypesColumn>): Int32Array {
  const c = sort.column;
  return sorted(rows, search, (r) => r.type, sort.descending, c === 'type' ? (a, b) => byName(a.type, b.type) : (a, b) => a[c] - b[c]);
}

/** The Heap tab's types: those the filter matches, in the picked order (a delta a row lacks counts as 0). */
export function heapTypeRows(rows: readonly HeapTypeRow[], search: string, sort: TableSort<HeapTypesColumn>): Int32Array {
  const c = sort.column;
  return sorted(rows, search, (r) => r.type, sort.descending, c === 'type' ? (a, b) => byName(a.type, b.type) : (a, b) => (a[c] ?? 0) - (b[c] ?? 0));
}

export function exceptionRows(rows: readonly ExceptionRow[], search: string, sort: TableSort<ExceptionsColumn>): Int32Array {
  const compare = ((): ((a: ExceptionRow, b: ExceptionRow) => number) => {
    switch (sort.column) {
      case 'type': return (a, b) => byName(a.type, b.type);
      case 'count': return (a, b) => a.count - b.count;
      case 'thrower': return (a, b) => byName(a.methods[0]?.name ?? '', b.methods[0]?.name ?? '');
      case 'throwerShare': return (a, b) => throwerShare(a) - throwerShare(b);
      case 'rethrows': return (a, b) => a.rethrows - b.rethrows;
    }
  })();
  return sorted(rows, search, (r) => r.type, sort.descending, compare);
}

/** A click on a column: the same column flips, another starts descending (names ascending). */
export function nextSort<C extends string>(sort: TableSort<C>, column: string, names: readonly string[]): TableSort<C> {
  const c = column as C;
  if (sort.column === c) return { column: c, descending: !sort.descending };
  return { column: c, descending: !names.includes(c) };
}
