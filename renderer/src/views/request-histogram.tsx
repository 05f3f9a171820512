// An endpoint's latency histogram (structs/analysis/request-histogram.ts): a bar per bucket of
// latency. Clicking a bar, or dragging across bars, picks the requests of that latency range
// (requests-view.tsx shows their flame graph).

import { useState, type ReactElement } from 'react';
import type { LatencyHistogram } from '../../../structs/analysis/request-histogram.js';

const W = 640;
const H = 120;

export const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function RequestHistogram({ h, endpoint, onPick }: { h: LatencyHistogram; endpoint: string; onPick: (fromMs: number, toMs: number) => void }): ReactElement {
  const top = Math.max(1, ...h.counts);
  const bar = W / Math.max(1, h.counts.length);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const lo = drag === null ? -1 : Math.min(drag.from, drag.to);
  const hi = drag === null ? -1 : Math.max(drag.from, drag.to);
  const finish = (): void => {
    if (drag === null) return;
    setDrag(null);
    onPick(h.bounds[lo], h.bounds[hi + 1]);
  };
  return (
    <figure className="request-histogram" data-testid="requests-histogram">
      <figcaption className="hint">{`Latency of ${endpoint}: requests per bucket, ${ms(h.bounds[0] ?? 0)}–${ms(h.bounds[h.bounds.length - 1] ?? 0)} ms; click a bar or drag across bars for those requests' flame graph`}</figcaption>
      <svg
        viewBox={`0 0 ${W} ${H + 14}`} width={W} height={H + 14} role="img" aria-label={`Latency histogram of ${endpoint}`}
        onMouseUp={finish} onMouseLeave={() => setDrag(null)} style={{ cursor: 'pointer', userSelect: 'none' }}
      >
        {h.counts.map((c, i) => (
          // The whole column takes the pointer, so a short bar is as easy to hit as a tall one.
          <g key={i} data-testid="requests-histogram-column" onMouseDown={() => setDrag({ from: i, to: i })} onMouseEnter={() => { if (drag !== null) setDrag({ ...drag, to: i }); }}>
            <rect x={i * bar} y={0} width={bar} height={H} fill="transparent" />
            <rect
              data-testid="requests-histogram-bar" data-count={c} x={i * bar + 1} y={H - (c / top) * H} width={Math.max(1, bar - 2)} height={(c / top) * H}
              fill={i >= lo && i <= hi ? 'var(--accent-strong)' : 'var(--accent)'}
            >
              <title>{`${ms(h.bounds[i])}–${ms(h.bounds[i + 1])} ms: ${c}`}</title>
            </rect>
          </g>
        ))}
        <text x={0} y={H + 12} fontSize={10} fill="currentColor">{`${ms(h.bounds[0] ?? 0)} ms`}</text>
        <text x={W} y={H + 12} fontSize={10} fill="currentColor" textAnchor="end">{`${ms(h.bounds[h.bounds.length - 1] ?? 0)} ms`}</text>
      </svg>
    </figure>
  );
}
