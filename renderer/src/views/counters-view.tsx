// The runtime's counters over time: one small chart per group with the current values, and
// every field of the newest reading below.

import type { ReactElement } from 'react';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { COUNTER_CHARTS, chartData } from '../state/counter-charts.js';
import { CounterChart } from './counter-chart.js';
import { formatCount } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function CountersView(): ReactElement {
  const ws = useWorkstation();
  // Re-render on every new point; the points themselves live in the controller's history.
  useAppState((s) => s.countersVersion);
  const sessionId = useAppState((s) => s.selectedSessionId);
  const points = ws.counters.points(sessionId);
  const live = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'recording');
  if (points.length === 0) {
    const why = live
      ? 'No counters yet: they appear once the program\'s runtime has started and published its counters block.'
      : 'This recording has no counters: the program published none while recorded, or the file\'s format keeps none (pprof, speedscope and collapsed stacks never do).';
    return <div className="counters-view"><p className="empty" data-testid="counters-empty">{why}</p></div>;
  }
  const last = points[points.length - 1];
  return (
    <div className="counters-view">
      <div className="counter-grid">
        {COUNTER_CHARTS.map((spec) => <CounterChart key={spec.id} spec={spec} data={chartData(points, spec)} />)}
      </div>
      <AllCounters point={last} />
    </div>
  );
}

function AllCounters({ point }: { point: CountersPoint }): ReactElement {
  return (
    <details className="all-counters">
      <summary>Every counter at {new Date(point.timeMs).toLocaleTimeString()}</summary>
      <div className="all-counters-grid">
        {Object.entries(point.values).map(([section, values]) => (
          <table key={section} className="grid compact">
            <thead><tr><th colSpan={2}>{section}</th></tr></thead>
            <tbody>
              {Object.entries(values).map(([name, v]) => (
                <tr key={name}><td>{name}</td><td className="num">{formatCount(v)}</td></tr>
              ))}
            </tbody>
          </table>
        ))}
      </div>
    </details>
  );
}
