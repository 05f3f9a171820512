// HTTP requests per endpoint (record --requests), the table `clrscope report --requests` prints:
// count, p50/p90/p99/max latency, CPU per request, errors and requests in flight, with the picked
// endpoint's latency histogram; "Flame graph" shows only the samples its requests hold
// (worker/flame-endpoint.ts).

import { useState, type ReactElement } from 'react';
import type { LatencyHistogram } from '../../../structs/analysis/request-histogram.js';
import { isEventMetric } from '../../../structs/profile/event-metrics.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const W = 640;
const H = 120;

function Histogram({ h, endpoint }: { h: LatencyHistogram; endpoint: string }): ReactElement {
  const top = Math.max(1, ...h.counts);
  const bar = W / Math.max(1, h.counts.length);
  const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  return (
    <figure className="request-histogram" data-testid="requests-histogram">
      <figcaption className="hint">{`Latency of ${endpoint}: requests per bucket, ${ms(h.bounds[0] ?? 0)}–${ms(h.bounds[h.bounds.length - 1] ?? 0)} ms`}</figcaption>
      <svg viewBox={`0 0 ${W} ${H + 14}`} width={W} height={H + 14} role="img" aria-label={`Latency histogram of ${endpoint}`}>
        {h.counts.map((c, i) => (
          <rect key={i} data-testid="requests-histogram-bar" data-count={c} x={i * bar + 1} y={H - (c / top) * H} width={Math.max(1, bar - 2)} height={(c / top) * H} fill="var(--accent)">
            <title>{`${ms(h.bounds[i])}–${ms(h.bounds[i + 1])} ms: ${c}`}</title>
          </rect>
        ))}
        <text x={0} y={H + 12} fontSize={10} fill="currentColor">{`${ms(h.bounds[0] ?? 0)} ms`}</text>
        <text x={W} y={H + 12} fontSize={10} fill="currentColor" textAnchor="end">{`${ms(h.bounds[h.bounds.length - 1] ?? 0)} ms`}</text>
      </svg>
    </figure>
  );
}

export function RequestsView(): ReactElement {
  const ws = useWorkstation();
  const tab = useAppState((s) => s.requests);
  const metric = useAppState((s) => s.flameOptions.metric);
  const [picked, setPicked] = useState<string | null>(null);
  if (tab === null) return <div className="pool-view"><p className="empty">Waiting for data…</p></div>;
  if (tab.rows.length === 0) {
    return <div className="pool-view"><p className="empty" data-testid="requests-empty">No HTTP requests in this recording: record an ASP.NET Core program (.NET 8 or later) with --requests.</p></div>;
  }
  const shown = picked !== null && tab.rows.some((r) => r.endpoint === picked) ? picked : tab.rows[0].endpoint;
  const flameOf = (endpoint: string): void => {
    ws.view.setFlameOptions({ endpoint, ...(isEventMetric(metric) ? { metric: 'cpu' as const } : {}) });
    ws.view.setTab('flame');
  };
  return (
    <div className="pool-view gc-view" data-testid="requests-view">
      <table className="grid compact" data-testid="requests-table">
        <thead>
          <tr>
            <th>Endpoint</th><th className="num">Count</th><th className="num">p50 ms</th><th className="num">p90 ms</th><th className="num">p99 ms</th>
            <th className="num">Max ms</th><th className="num">CPU ms/req</th><th className="num">Errors</th><th className="num">In flight</th><th />
          </tr>
        </thead>
        <tbody>
          {tab.rows.map((r) => (
            <tr key={r.endpoint} data-testid="requests-row" className={r.endpoint === shown ? 'selected' : ''} onClick={() => setPicked(r.endpoint)} style={{ cursor: 'pointer' }}>
              <td data-testid="requests-endpoint">{r.endpoint}</td>
              <td className="num" data-testid="requests-count">{r.count}</td>
              <td className="num" data-testid="requests-p50">{r.p50Ms.toFixed(2)}</td>
              <td className="num" data-testid="requests-p90">{r.p90Ms.toFixed(2)}</td>
              <td className="num" data-testid="requests-p99">{r.p99Ms.toFixed(2)}</td>
              <td className="num" data-testid="requests-max">{r.maxMs.toFixed(2)}</td>
              <td className="num" data-testid="requests-cpu">{(r.count === 0 ? 0 : r.cpuMs / r.count).toFixed(2)}</td>
              <td className="num" data-testid="requests-errors">{r.errors}</td>
              <td className="num">{r.inFlight}</td>
              <td><button type="button" className="link" data-testid="requests-flame" onClick={(e) => { e.stopPropagation(); flameOf(r.endpoint); }}>Flame graph</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {tab.histograms[shown] !== undefined && <Histogram h={tab.histograms[shown]} endpoint={shown} />}
    </div>
  );
}
