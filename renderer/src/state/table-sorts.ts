// How the functions, types and exceptions tables are sorted: the table's rows come from the
// worker in its own order and the view sorts them, so a change re-queries nothing.

import type { ExceptionsColumn, FunctionsSort, TableSort, TypesColumn } from './app-state.js';
import type { StationContext } from './station-context.js';

export class TableSorts {
  constructor(private readonly ctx: StationContext) {}

  setFunctionsSort(functionsSort: FunctionsSort): void {
    this.ctx.store.update({ functionsSort });
  }

  setTypesSort(typesSort: TableSort<TypesColumn>): void {
    this.ctx.store.update({ typesSort });
  }

  setExceptionsSort(exceptionsSort: TableSort<ExceptionsColumn>): void {
    this.ctx.store.update({ exceptionsSort });
  }
}
