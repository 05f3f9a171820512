// HTTP requests per endpoint (record --requests), the table `clrscope report --requests` prints:
// count, p50/p90/p99/max latency, CPU per request, errors and requests in flight, with the picked
// endpoint's latency histogram and its requests, slowest first; "Flame graph" shows only the
// samples its requests hold (worker/flame-endpoint.ts), as it does for one request or a latency
// range; a request's timeline shows where its time went; "slow vs typical" is a Diff tab diff.

import { useState, type ReactElement } from 'react';
import { inLatencyRange } from '../../../structs/analysis/request-picks.js';
import { requestTrackingSentence } from '../../../structs/analysis/request-tracking.js';
import { isEventMetric } from '../../../structs/profile/event-metrics.js';
import type { RequestPick } from '../state/app-state.js';
import { RequestHistogram, ms } from './request-histogram.js';
import { RequestList } from './request-list.js';
import { RequestTimelineView } from './request-timeline-view.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function RequestsView(): ReactElement {
  const ws = useWorkstation();
  const tab = useAppState((s) => s.recordingViews.requests);
  const metric = useAppState((s) => s.flameOptions.metric);
  const timeline = useAppState((s) => s.requestTimeline);
  const [picked, setPicked] = useState<string | null>(null);
  if (tab === null) return <div className="pool-view"><p className="empty">Waiting for data…</p></div>;
  if (tab.rows.length === 0) {
    return <div className="pool-view"><p className="empty" data-testid="requests-empty">No HTTP requests in this recording: record an ASP.NET Core program (.NET 8 or later) with --requests.</p></div>;
  }
  const shown = picked !== null && tab.rows.some((r) => r.endpoint === picked) ? picked : tab.rows[0].endpoint;
  const sampled = isEventMetric(metric) ? { metric: 'cpu' as const } : {};
  const flameOf = (endpoint: string): void => {
    ws.view.setFlameOptions({ endpoint, requests: null, ...sampled });
    ws.view.setTab('flame');
  };
  const flameOfRequests = (requests: RequestPick): void => {
    ws.view.setFlameOptions({ endpoint: null, requests, ...sampled });
    ws.view.setTab('flame');
  };
  // The slow side is the flame graph's (the diff's after side), the typical one its baseline.
  const slowVsTypical = (slow: RequestPick, usual: RequestPick): void => {
    ws.view.setFlameOptions({ endpoint: null, requests: slow, ...sampled });
    ws.diff.setOptions({ baseline: { kind: 'requests', requests: usual } });
    ws.view.setTab('diff');
  };
  const items = tab.requests[shown] ?? [];
  const pickRange = (fromMs: number, toMs: number): void => {
    const picked = inLatencyRange(items, fromMs, toMs);
    if (picked.length > 0) flameOfRequests({ ids: picked.map((r) => r.index), label: `${shown}: ${ms(fromMs)}–${ms(toMs)} ms (${picked.length})` });
  };
  const shownTimeline = timeline !== null && timeline.endpoint === shown ? timeline : null;
  // The counts are a sample when the profiler listened part of the time: said before them, as report --requests says it after.
  const sampledNote = requestTrackingSentence(tab.tracking);
  return (
    <div className="pool-view gc-view" data-testid="requests-view">
      {sampledNote !== null && <p data-testid="requests-sampled">{sampledNote}</p>}
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
      {tab.histograms[shown] !== undefined && <RequestHistogram h={tab.histograms[shown]} endpoint={shown} onPick={pickRange} />}
      {shownTimeline !== null && <RequestTimelineView t={shownTimeline} />}
      <RequestList
        endpoint={shown} items={items} timelineOf={shownTimeline?.index ?? null}
        act={{ flame: flameOfRequests, timeline: (index) => void ws.showRequestTimeline(index), slowVsTypical }}
      />
    </div>
  );
}
