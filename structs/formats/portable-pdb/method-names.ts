// Method names of an assembly's metadata, as clrscope's profiler writes them
// (`Namespace.Type+Nested.Method`, without generic arguments), with their MethodDef tokens:
// the link from a frame's name to its sequence points when a recording carries no token.

import { Metadata, Table } from './metadata.js';

export interface MethodDefinition {
  token: number;
  name: string;
}

// Column numbers (II.22): TypeDef Flags, Name, Namespace, Extends, FieldList, MethodList; MethodDef RVA, ImplFlags, Flags, Name, Signature, ParamList.
const TYPE_NAME = 1;
const TYPE_NAMESPACE = 2;
const TYPE_METHOD_LIST = 5;
const METHOD_NAME = 3;

/** Every method of the assembly with its token, in token order. */
export function methodDefinitions(md: Metadata): MethodDefinition[] {
  const types = md.rows[Table.TypeDef];
  const methods = md.rows[Table.MethodDef];
  const enclosing = new Map<number, number>();
  for (let row = 1; row <= md.rows[Table.NestedClass]; row++) enclosing.set(md.cell(Table.NestedClass, row, 0), md.cell(Table.NestedClass, row, 1));
  const typeNames = new Map<number, string>();
  const typeName = (row: number): string => {
    let name = typeNames.get(row);
    if (name === undefined) {
      // Generic arity (`List`1`) is not part of the profiler's names.
      const own = md.string(md.cell(Table.TypeDef, row, TYPE_NAME)).replace(/`\d+$/, '');
      const outer = enclosing.get(row);
      if (outer !== undefined && outer !== row) name = `${typeName(outer)}+${own}`;
      else {
        const ns = md.string(md.cell(Table.TypeDef, row, TYPE_NAMESPACE));
        name = ns === '' ? own : `${ns}.${own}`;
      }
      typeNames.set(row, name);
    }
    return name;
  };
  const out: MethodDefinition[] = [];
  for (let t = 1; t <= types; t++) {
    const first = md.cell(Table.TypeDef, t, TYPE_METHOD_LIST);
    const end = t < types ? md.cell(Table.TypeDef, t + 1, TYPE_METHOD_LIST) : methods + 1;
    for (let m = first; m < end && m <= methods; m++) {
      out.push({ token: 0x06000000 | m, name: `${typeName(t)}.${md.string(md.cell(Table.MethodDef, m, METHOD_NAME))}` });
    }
  }
  return out;
}
