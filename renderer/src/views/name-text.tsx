// A long .NET name in a table cell: shortened to the cell's width by structs/text/name-elide.ts
// (what tells rows apart stays), whole on hover. Names are drawn in the monospace font, so the
// number of characters that fit is the width over one character's advance, measured once.

import type { ReactElement } from 'react';
import { elideName } from '../../../structs/text/name-elide.js';

// The cells' horizontal padding (styles.css, .vcell) and a little air for the last glyph.
const PADDING_PX = 18;
let charWidth = 0;

/** One character's advance in the tables' monospace font at 12px. */
function monoCharWidth(): number {
  if (charWidth > 0) return charWidth;
  const ctx = document.createElement('canvas').getContext('2d');
  if (ctx === null) return 7.2;
  const family = getComputedStyle(document.documentElement).getPropertyValue('--mono').trim() || 'monospace';
  ctx.font = `12px ${family}`;
  charWidth = ctx.measureText('0123456789').width / 10 || 7.2;
  return charWidth;
}

/** How many characters of the table's font fit in `widthPx` (Infinity before the column is measured). */
export function charsThatFit(widthPx: number): number {
  if (widthPx <= 0) return Infinity;
  return Math.max(4, Math.floor((widthPx - PADDING_PX) / monoCharWidth()));
}

export function NameText({ name, widthPx, kind, className }: { name: string; widthPx: number; kind: 'method' | 'type'; className?: string }): ReactElement {
  const fit = charsThatFit(widthPx);
  const shown = fit === Infinity ? name : elideName(name, fit, kind);
  return <span className={className} title={shown === name ? undefined : name} data-name={name}>{shown}</span>;
}

/** The details line under a table: the selected row's whole name (wrapped, never cut) and its module. */
export function NameDetails({ name, module, testId = 'name-details' }: { name: string | null; module?: string; testId?: string }): ReactElement {
  return (
    <div className="name-details" data-testid={testId}>
      {name === null ? <span className="hint">Select a row to read its whole name here.</span> : <>{name}{module !== undefined && module !== '' && <span className="hint"> ({module})</span>}</>}
    </div>
  );
}
