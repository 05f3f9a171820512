// What a frame under the mouse costs: its label, self and total time, share of the graph
// and of its caller.

import type { ReactElement } from 'react';
import type { FlameTooltip } from '../canvas/flame-renderer.js';
import { formatMetricValue, formatPercent } from './format.js';
import { useAppState } from './use-app-state.js';

export interface TooltipAt {
  node: number;
  /** Mouse position in the flame box, CSS pixels, and the box's size. */
  x: number;
  y: number;
  width: number;
  height: number;
}

const KINDS = ['managed', 'native', 'runtime', 'thread'];

/** `source`: the function's hottest line (`path:line`), when its PDB was found. */
export function FlameTooltipView({ tip, at, source }: { tip: FlameTooltip; at: TooltipAt; source?: string }): ReactElement {
  const metric = useAppState((s) => s.flameOptions.metric);
  // Keep the box inside the graph: to the left of the mouse on the right half, above it on the lower half.
  const style = {
    left: at.x + 14,
    top: at.y + 14,
    transform: `${at.x > at.width / 2 ? 'translateX(calc(-100% - 28px))' : ''} ${at.y > at.height / 2 ? 'translateY(calc(-100% - 28px))' : ''}`.trim() || undefined,
  };
  return (
    <div className="tooltip" style={style} data-testid="flame-tooltip">
      <div className="tooltip-label">{tip.label}</div>
      {source !== undefined && <div className="tooltip-source" data-testid="flame-tooltip-source">{source}</div>}
      <table>
        <tbody>
          <tr><th>total</th><td>{formatMetricValue(metric, tip.total)}</td><td>{formatPercent(tip.percentOfTotal / 100)}</td></tr>
          <tr><th>self</th><td>{formatMetricValue(metric, tip.self)}</td><td>{formatPercent(tip.total > 0 ? (tip.self / tip.total) * (tip.percentOfTotal / 100) : 0)}</td></tr>
          <tr><th>of caller</th><td /><td>{formatPercent(tip.percentOfParent / 100)}</td></tr>
        </tbody>
      </table>
      <div className="tooltip-kind">{KINDS[tip.kind] ?? ''} frame, depth {tip.depth}</div>
    </div>
  );
}
