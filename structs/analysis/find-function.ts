// Which function a user means by a name typed on a command line or in a box: the frame of
// that exact name, else the one frame whose name contains it (ignoring case).

import type { FunctionsTable } from './functions-table.js';

export type FunctionMatch =
  | { kind: 'found'; name: string }
  | { kind: 'none' }
  /** Several frames contain the text and none is named exactly so: up to 10 of them, busiest first. */
  | { kind: 'ambiguous'; names: string[] };

export function findFunction(table: FunctionsTable, query: string): FunctionMatch {
  const text = query.trim();
  if (table.name.includes(text)) return { kind: 'found', name: text };
  const lower = text.toLowerCase();
  const hits: number[] = [];
  for (let i = 0; i < table.rowCount; i++) if (table.name[i].toLowerCase().includes(lower)) hits.push(i);
  if (hits.length === 0) return { kind: 'none' };
  if (hits.length === 1) return { kind: 'found', name: table.name[hits[0]] };
  // A method name given without its namespace: `OrderService.Run` for `App.OrderService.Run`.
  const suffix = hits.filter((i) => table.name[i].toLowerCase().endsWith(`.${lower}`));
  if (suffix.length === 1) return { kind: 'found', name: table.name[suffix[0]] };
  hits.sort((a, b) => table.total[b] - table.total[a]);
  return { kind: 'ambiguous', names: hits.slice(0, 10).map((i) => table.name[i]) };
}
