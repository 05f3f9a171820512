// A table that keeps only the rows on screen in the DOM: 50,000 functions scroll as smoothly
// as 50, because a scroll re-renders the forty or so rows that fit, placed at their offset in
// a box as tall as all rows. Rows have one fixed height; columns are a CSS grid.

import { useEffect, useRef, useState, type ReactElement, type ReactNode } from 'react';

export interface VirtualColumn {
  key: string;
  title: string;
  /** A CSS grid track: `5em`, `minmax(0, 1fr)`. */
  width: string;
  numeric?: boolean;
  sortable?: boolean;
  /** A handle at the header's right edge drags the column wider or narrower (a double-click puts it back). */
  resizable?: boolean;
}

interface Props {
  rowCount: number;
  columns: readonly VirtualColumn[];
  /** The content of one cell; `width`: the column's width on screen in pixels (0 before it is measured). */
  cell(row: number, column: string, width: number): ReactNode;
  rowHeight?: number;
  selectedRow?: number;
  onSelect?(row: number): void;
  onActivate?(row: number): void;
  sortKey?: string;
  sortDescending?: boolean;
  onSort?(column: string): void;
  /** Classes a row adds to its own (heat, dimmed). */
  rowClass?(row: number): string;
  /** A row to bring to the middle of the view whenever this value changes (-1: none). */
  scrollToRow?: number;
  /** A row's tooltip. */
  rowTitle?(row: number): string;
  testId: string;
  empty?: ReactNode;
}

// Rows drawn beyond each edge of the visible area, so a fast scroll shows no blank band.
const OVERSCAN = 8;

export function VirtualTable(props: Props): ReactElement {
  const { rowCount, columns, cell, selectedRow = -1, onSelect, onActivate, sortKey, sortDescending, onSort, rowTitle, rowClass, scrollToRow = -1, testId, empty } = props;
  const rowHeight = props.rowHeight ?? 22;
  const bodyRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const headRef = useRef<HTMLDivElement>(null);
  // Widths the user dragged columns to, in pixels, and every column's width as drawn.
  const [dragged, setDragged] = useState<Record<string, number>>({});
  const [measured, setMeasured] = useState<Record<string, number>>({});
  const template = columns.map((c) => (dragged[c.key] !== undefined ? `${dragged[c.key]}px` : c.width)).join(' ');

  useEffect(() => {
    const head = headRef.current;
    if (head === null) return;
    const measure = (): void => {
      const next: Record<string, number> = {};
      head.querySelectorAll<HTMLElement>('[data-column]').forEach((el) => { next[el.dataset.column ?? ''] = el.getBoundingClientRect().width; });
      setMeasured((old) => (Object.keys(next).every((k) => old[k] === next[k]) && Object.keys(old).length === Object.keys(next).length ? old : next));
    };
    const resize = new ResizeObserver(measure);
    head.querySelectorAll<HTMLElement>('[data-column]').forEach((el) => resize.observe(el));
    measure();
    return () => resize.disconnect();
  }, [template]);

  const startResize = (key: string, e: React.PointerEvent<HTMLSpanElement>): void => {
    e.preventDefault();
    e.stopPropagation();
    const from = e.clientX;
    const start = measured[key] ?? (e.currentTarget.parentElement?.getBoundingClientRect().width ?? 200);
    const move = (ev: PointerEvent): void => setDragged((d) => ({ ...d, [key]: Math.max(80, Math.round(start + ev.clientX - from)) }));
    const up = (): void => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };

  useEffect(() => {
    const body = bodyRef.current;
    if (body === null) return;
    const resize = new ResizeObserver(() => setHeight(body.clientHeight));
    resize.observe(body);
    setHeight(body.clientHeight);
    return () => resize.disconnect();
  }, []);

  // A shorter list (a new filter) may leave the scroll position past its end.
  useEffect(() => {
    const body = bodyRef.current;
    if (body !== null && body.scrollTop > rowCount * rowHeight) body.scrollTop = 0;
  }, [rowCount, rowHeight]);

  useEffect(() => {
    const body = bodyRef.current;
    if (body === null || scrollToRow < 0 || scrollToRow >= rowCount) return;
    body.scrollTop = Math.max(0, scrollToRow * rowHeight - (body.clientHeight - rowHeight) / 2);
    setScrollTop(body.scrollTop);
    // The row count is left out on purpose: rows arriving later do not scroll the view back.
  }, [scrollToRow, rowHeight]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(rowCount, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const rows: ReactElement[] = [];
  for (let r = first; r < last; r++) {
    rows.push(
      <div
        key={r} role="row" className={`${r === selectedRow ? 'vrow selected' : 'vrow'}${rowClass === undefined ? '' : ` ${rowClass(r)}`}`} data-row={r} aria-selected={r === selectedRow}
        style={{ top: r * rowHeight, height: rowHeight, gridTemplateColumns: template }} title={rowTitle?.(r)}
        onClick={() => onSelect?.(r)} onDoubleClick={() => onActivate?.(r)}
      >
        {columns.map((c) => <div key={c.key} role="cell" className={c.numeric === true ? 'vcell num' : 'vcell'}>{cell(r, c.key, measured[c.key] ?? 0)}</div>)}
      </div>,
    );
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>): void => {
    if (onSelect === undefined || rowCount === 0) return;
    const page = Math.floor(height / rowHeight);
    const step = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : e.key === 'PageDown' ? page : e.key === 'PageUp' ? -page : e.key === 'End' ? rowCount : e.key === 'Home' ? -rowCount : 0;
    if (e.key === 'Enter' && selectedRow >= 0) {
      onActivate?.(selectedRow);
      return;
    }
    if (step === 0) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(rowCount - 1, (selectedRow < 0 ? -1 : selectedRow) + step));
    onSelect(next);
    const body = bodyRef.current;
    if (body === null) return;
    if (next * rowHeight < body.scrollTop) body.scrollTop = next * rowHeight;
    else if ((next + 1) * rowHeight > body.scrollTop + body.clientHeight) body.scrollTop = (next + 1) * rowHeight - body.clientHeight;
  };

  return (
    <div className="vtable" role="table" data-testid={testId} data-rows={rowCount}>
      <div className="vhead" role="row" style={{ gridTemplateColumns: template }} ref={headRef}>
        {columns.map((c) => (
          <div
            key={c.key} role="columnheader" data-column={c.key} className={`vcell${c.numeric === true ? ' num' : ''}${c.sortable === true ? ' sortable' : ''}${c.resizable === true ? ' resizable' : ''}`}
            data-testid={`${testId}-sort-${c.key}`} aria-sort={sortKey === c.key ? (sortDescending === true ? 'descending' : 'ascending') : undefined}
            onClick={c.sortable === true ? () => onSort?.(c.key) : undefined}
          >
            {c.title}{sortKey === c.key ? (sortDescending === true ? ' ▼' : ' ▲') : ''}
            {c.resizable === true && (
              <span
                className="col-resize" data-testid={`${testId}-resize-${c.key}`} title="Drag to widen; double-click for the default width"
                onPointerDown={(e) => startResize(c.key, e)} onClick={(e) => e.stopPropagation()}
                onDoubleClick={(e) => { e.stopPropagation(); setDragged((d) => { const { [c.key]: _gone, ...rest } = d; return rest; }); }}
              />
            )}
          </div>
        ))}
      </div>
      <div className="vbody" ref={bodyRef} tabIndex={0} onKeyDown={onKeyDown} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)} data-testid={`${testId}-body`}>
        <div className="vspacer" style={{ height: rowCount * rowHeight }}>{rows}</div>
        {rowCount === 0 && empty !== undefined && <div className="empty">{empty}</div>}
      </div>
    </div>
  );
}
