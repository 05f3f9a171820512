// A drop-down of rows with a checkbox each, for the flame graph's thread and process filters:
// which rows are chosen (null: all of them), "all" and "none", and the panel closing on a click
// outside it.

import { useEffect, useRef, useState, type ReactElement, type ReactNode } from 'react';

export interface ChecklistRow {
  id: number;
  /** The row's cells after its checkbox, in the order of the header's. */
  cells: ReactNode[];
  muted?: boolean;
  /** data-* attributes of its checkbox, for the tests that pick a row by them. */
  data?: Record<`data-${string}`, string | number>;
}

export interface ChecklistDropdownProps {
  testId: string;
  optionTestId: string;
  /** The button's text: what is chosen. */
  label: string;
  /** Column headers after the checkbox column; a header starting with '#' is numeric (right-aligned). */
  columns: string[];
  rows: ChecklistRow[];
  selected: readonly number[] | null;
  /** The new choice: null for every row, else the chosen ids in ascending order. */
  onChange(ids: number[] | null): void;
}

export function ChecklistDropdown(props: ChecklistDropdownProps): ReactElement {
  const { rows, selected, onChange } = props;
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent): void => {
      if (box.current !== null && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);

  const chosen = new Set(selected ?? rows.map((r) => r.id));
  const toggle = (id: number): void => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onChange(next.size === rows.length ? null : [...next].sort((a, b) => a - b));
  };
  const numeric = (c: string): boolean => c.startsWith('#');

  return (
    <div className="dropdown" ref={box}>
      <button type="button" data-testid={props.testId} aria-expanded={open} onClick={() => setOpen(!open)}>{props.label} ▾</button>
      {open && (
        <div className="dropdown-panel" data-testid={`${props.testId}-panel`}>
          <div className="dropdown-actions">
            <button type="button" className="link" onClick={() => onChange(null)}>all</button>
            <button type="button" className="link" onClick={() => onChange([])}>none</button>
          </div>
          <table className="grid compact">
            <thead><tr><th />{props.columns.map((c) => <th key={c} className={numeric(c) ? 'num' : undefined}>{numeric(c) ? c.slice(1) : c}</th>)}</tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className={r.muted === true ? 'muted' : ''}>
                  <td><input type="checkbox" checked={chosen.has(r.id)} onChange={() => toggle(r.id)} data-testid={props.optionTestId} {...r.data} /></td>
                  {r.cells.map((cell, i) => <td key={i} className={numeric(props.columns[i] ?? '') ? 'num' : undefined}>{cell}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
