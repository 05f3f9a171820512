// One HTTP request's timeline (structs/analysis/request-timeline.ts), from its start to its end:
// a lane per thread it ran on, CPU and waiting-on-the-thread spans in it, and a lane of the
// stretches it was on no thread (suspended at an await), named by what it awaited when the
// recording has async stacks.

import type { ReactElement } from 'react';
import type { RequestTimeline } from '../../../structs/analysis/request-timeline.js';
import { ms } from './request-histogram.js';

const W = 640;
const LANE = 18;
const LABEL = 150;

const pct = (part: number, whole: number): string => `${whole <= 0 ? 0 : ((100 * part) / whole).toFixed(1)}%`;

export function RequestTimelineView({ t }: { t: RequestTimeline }): ReactElement {
  const span = W - LABEL;
  const x = (v: number): number => LABEL + (t.latencyMs <= 0 ? 0 : (v / t.latencyMs) * span);
  const lanes = t.threads.length + 1;
  const height = lanes * LANE + 16;
  return (
    <figure className="request-timeline" data-testid="request-timeline" data-cpu-ms={t.cpuMs} data-blocked-ms={t.blockedMs} data-suspended-ms={t.suspendedMs} data-latency-ms={t.latencyMs}>
      <figcaption className="hint" data-testid="request-timeline-caption">
        {`${t.endpoint} → ${t.status}, ${ms(t.latencyMs)} ms (trace ${t.traceId || '—'}): on a CPU ${ms(t.cpuMs)} ms (${pct(t.cpuMs, t.latencyMs)}), waiting on a thread ${ms(t.blockedMs)} ms (${pct(t.blockedMs, t.latencyMs)}), suspended ${ms(t.suspendedMs)} ms (${pct(t.suspendedMs, t.latencyMs)})`}
        {!t.hasAsync && t.suspendedMs > 0 ? '; record with --async to see what it awaited' : ''}
      </figcaption>
      <svg viewBox={`0 0 ${W} ${height}`} width={W} height={height} role="img" aria-label={`Timeline of a ${t.endpoint} request`}>
        <rect x={LABEL} y={0} width={span} height={lanes * LANE} fill="var(--canvas-bg)" />
        {t.threads.map((th, lane) => (
          <g key={th.threadId} data-testid="request-timeline-thread">
            <text x={LABEL - 6} y={lane * LANE + 13} fontSize={11} fill="currentColor" textAnchor="end">{th.name.length > 22 ? `${th.name.slice(0, 21)}…` : th.name}</text>
            {th.spans.map((s, i) => (
              <rect
                key={i} data-state={s.state} x={x(s.fromMs)} y={lane * LANE + 3} width={Math.max(1, x(s.toMs) - x(s.fromMs))} height={LANE - 6}
                fill={s.state === 'cpu' ? 'rgb(var(--timeline-cpu))' : 'var(--timeline-wait)'} stroke={s.state === 'cpu' ? 'none' : 'var(--canvas-grid)'}
              >
                <title>{`${s.state === 'cpu' ? 'on a CPU' : 'waiting on the thread'} ${ms(s.fromMs)}–${ms(s.toMs)} ms`}</title>
              </rect>
            ))}
          </g>
        ))}
        <g data-testid="request-timeline-suspended">
          <text x={LABEL - 6} y={t.threads.length * LANE + 13} fontSize={11} fill="currentColor" textAnchor="end">suspended</text>
          {t.suspended.map((s, i) => (
            <rect key={i} x={x(s.fromMs)} y={t.threads.length * LANE + 3} width={Math.max(1, x(s.toMs) - x(s.fromMs))} height={LANE - 6} fill="var(--violet)">
              <title>{`suspended ${ms(s.fromMs)}–${ms(s.toMs)} ms${s.awaiting === null ? '' : `, ${s.awaiting}`}`}</title>
            </rect>
          ))}
        </g>
        <text x={LABEL} y={height - 3} fontSize={10} fill="currentColor">0 ms</text>
        <text x={W} y={height - 3} fontSize={10} fill="currentColor" textAnchor="end">{`${ms(t.latencyMs)} ms`}</text>
      </svg>
      {t.suspended.some((s) => s.awaiting !== null) && (
        <ul className="hint" data-testid="request-timeline-awaits">
          {t.suspended.filter((s) => s.awaiting !== null && s.toMs - s.fromMs >= 0.01 * t.latencyMs).map((s, i) => (
            <li key={i}>{`${ms(s.fromMs)}–${ms(s.toMs)} ms: ${s.awaiting}`}</li>
          ))}
        </ul>
      )}
    </figure>
  );
}
