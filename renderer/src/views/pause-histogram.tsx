// How long pauses last: counts per power-of-two duration bucket, stacked by generation.

import type { ReactElement } from 'react';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import { PAUSE_GROUPS, pauseHistogram } from '../state/pause-groups.js';
import { formatNs } from './format.js';
import { pauseColor, useCanvasColors } from './theme.js';

const W = 480;
const H = 160;
const BOTTOM = 18;
const TOP = 14;

export function PauseHistogram({ pauses }: { pauses: readonly PauseEntry[] }): ReactElement {
  const colors = useCanvasColors();
  const buckets = pauseHistogram(pauses);
  const most = Math.max(1, ...buckets.map((b) => b.counts.reduce((a, c) => a + c, 0)));
  const bw = buckets.length > 0 ? W / buckets.length : W;
  const plotH = H - BOTTOM - TOP;
  // Label every bucket only when there is room for it.
  const labelEvery = Math.max(1, Math.ceil(buckets.length / 8));
  return (
    <figure className="histogram" data-testid="gc-histogram">
      <figcaption>Pause durations</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label="Histogram of pause durations">
        {buckets.map((b, i) => {
          let y = H - BOTTOM;
          const total = b.counts.reduce((a, c) => a + c, 0);
          return (
            <g key={b.fromNs}>
              {b.counts.map((c, gi) => {
                if (c === 0) return null;
                const h = (c / most) * plotH;
                y -= h;
                return <rect key={gi} x={i * bw + 1} y={y} width={Math.max(1, bw - 2)} height={h} fill={pauseColor(colors, PAUSE_GROUPS[gi])}><title>{`${c} pauses of ${formatNs(b.fromNs)}–${formatNs(b.toNs)}`}</title></rect>;
              })}
              {total > 0 && <text x={i * bw + bw / 2} y={y - 3} className="bar-count">{total}</text>}
              {i % labelEvery === 0 && <text x={i * bw + 2} y={H - 4} className="bar-label">{formatNs(b.fromNs)}</text>}
            </g>
          );
        })}
        <line x1={0} y1={H - BOTTOM + 0.5} x2={W} y2={H - BOTTOM + 0.5} className="axis" />
      </svg>
    </figure>
  );
}
