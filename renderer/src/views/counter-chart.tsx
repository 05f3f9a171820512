// A small line chart drawn as SVG: one polyline per series over the session's time, the
// y axis from zero to the largest value shown.

import type { ReactElement } from 'react';
import type { ChartData, ChartSpec } from '../state/counter-charts.js';
import { formatCounter } from './format.js';

const W = 300;
const H = 90;
const PAD = 2;

function points(times: number[], values: number[], tMax: number, yMax: number): string {
  const out: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) continue;
    const x = PAD + (tMax > 0 ? (times[i] / tMax) * (W - 2 * PAD) : W - 2 * PAD);
    const y = H - PAD - (yMax > 0 ? (v / yMax) * (H - 2 * PAD) : 0);
    out.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  return out.join(' ');
}

export function CounterChart({ spec, data }: { spec: ChartSpec; data: ChartData }): ReactElement {
  const tMax = data.times[data.times.length - 1] ?? 0;
  let yMax = 0;
  for (const series of data.values) for (const v of series) if (!Number.isNaN(v) && v > yMax) yMax = v;
  if (spec.unit === 'percent') yMax = Math.max(yMax, 10);
  return (
    <div className="counter-card" data-testid={`counter-chart-${spec.id}`}>
      <div className="counter-title">{spec.title}</div>
      <div className="counter-values">
        {spec.series.map((s, i) => (
          <span key={s.id} className={`series-${i}`}>
            <span className="series-label">{s.label}</span>
            <span className="series-value" data-testid={`counter-${s.id}`} data-value={data.current[i] ?? ''}>{formatCounter(data.current[i], spec.unit)}</span>
          </span>
        ))}
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" className="chart" role="img" aria-label={spec.title}>
        <line x1={0} y1={H - PAD} x2={W} y2={H - PAD} className="axis" />
        {data.values.map((v, i) => (
          <polyline key={spec.series[i].id} points={points(data.times, v, tMax, yMax)} className={`line series-${i}`} vectorEffect="non-scaling-stroke" />
        ))}
      </svg>
      <div className="chart-scale">
        <span>0–{formatCounter(yMax, spec.unit)}</span>
        <span>{tMax.toFixed(0)} s</span>
      </div>
    </div>
  );
}
