import { FunctionKind } from '../wire/records.js';

export interface FunctionInfo {
  readonly id: number;
  /** FunctionKind: 0 managed, 1 native, 2 synthetic. */
  readonly kind: number;
  readonly name: string;
  readonly module: string;
  readonly file: string;
}

/** The text views show for a frame: natives without a symbol still say which library they ran in. */
export function frameLabel(fn: FunctionInfo): string {
  if (fn.name !== '') return fn.name;
  if (fn.kind === FunctionKind.Native && fn.module !== '') return `[${fn.module}]`;
  return '[unknown]';
}
