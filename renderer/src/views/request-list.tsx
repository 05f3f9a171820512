// An endpoint's requests, slowest first (structs/analysis/request-picks.ts), with what can be
// asked of them: one request's flame graph or timeline, the slowest 1% or 10% as a flame graph,
// and "slow vs typical", the slowest tenth diffed against the p25–p75 ones.

import type { ReactElement } from 'react';
import type { RequestItem } from '../../../structs/analysis/request-picks.js';
import type { RequestPick } from '../state/app-state.js';
import { slowest, typical } from '../../../structs/analysis/request-picks.js';
import { ms } from './request-histogram.js';

// Rows listed: the slowest are the ones asked about; the histogram picks any others.
const LISTED = 50;

export interface RequestListActions {
  flame: (pick: RequestPick) => void;
  timeline: (index: number) => void;
  slowVsTypical: (slow: RequestPick, typical: RequestPick) => void;
}

/** The slowest `fraction` of an endpoint's requests as a pick. */
export function slowestPick(endpoint: string, items: readonly RequestItem[], fraction: number): RequestPick {
  const picked = slowest(items, fraction);
  return { ids: picked.map((r) => r.index), label: `${endpoint}: slowest ${Math.round(fraction * 100)}% (${picked.length})` };
}

export function RequestList({ endpoint, items, timelineOf, act }: { endpoint: string; items: readonly RequestItem[]; timelineOf: number | null; act: RequestListActions }): ReactElement {
  const compare = (): void => {
    const slow = slowestPick(endpoint, items, 0.1);
    const usual = typical(items, slow.ids);
    act.slowVsTypical(slow, { ids: usual.map((r) => r.index), label: `${endpoint}: typical, p25–p75 (${usual.length})` });
  };
  return (
    <section className="request-list" data-testid="request-list">
      <div className="toolbar">
        <span className="hint">{`${items.length} requests of ${endpoint}, slowest first`}</span>
        <button type="button" data-testid="requests-slowest-1" disabled={items.length === 0} onClick={() => act.flame(slowestPick(endpoint, items, 0.01))}>Slowest 1%</button>
        <button type="button" data-testid="requests-slowest-10" disabled={items.length === 0} onClick={() => act.flame(slowestPick(endpoint, items, 0.1))}>Slowest 10%</button>
        <button type="button" data-testid="requests-slow-vs-typical" disabled={items.length < 4} onClick={compare} title="The slowest 10% against the p25–p75 requests in the Diff tab">Slow vs typical</button>
      </div>
      <table className="grid compact">
        <thead>
          <tr><th className="num">Latency ms</th><th className="num">Status</th><th className="num">Start s</th><th>Trace id</th><th /><th /></tr>
        </thead>
        <tbody>
          {items.slice(0, LISTED).map((r) => (
            <tr key={r.index} data-testid="request-row" data-index={r.index} className={r.index === timelineOf ? 'selected' : ''}>
              <td className="num" data-testid="request-latency">{r.latencyMs.toFixed(2)}</td>
              <td className="num">{r.status}</td>
              <td className="num">{(r.startMs / 1000).toFixed(3)}</td>
              <td className="mono">{r.traceId}</td>
              <td><button type="button" className="link" data-testid="request-flame" onClick={() => act.flame({ ids: [r.index], label: `${endpoint} request ${ms(r.latencyMs)} ms${r.traceId === '' ? '' : ` (${r.traceId.slice(0, 8)})`}` })}>Flame graph</button></td>
              <td><button type="button" className="link" data-testid="request-timeline-open" onClick={() => act.timeline(r.index)}>Timeline</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
