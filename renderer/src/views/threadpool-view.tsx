// The thread pool's story (structs/analysis/pool-story.ts), as `clrscope report --blocking` tells
// it: the diagnosis sentence, the pool's workers over time with the spans it was short of threads,
// its queue and completed work items once a second when the recording has them (POOL_GAUGE), and
// the call sites that held pool threads in a wait, ranked; a clicked site shows its stacks.

import { useState, type ReactElement } from 'react';
import type { PoolPoint, PoolStory } from '../../../structs/analysis/pool-story.js';
import { formatPercent } from './format.js';
import { useAppState } from './use-app-state.js';

const WIDTH = 900;
const HEIGHT = 120;

/** The time axis' end, shared by the workers' and the queue's charts so they line up. */
function storyEndMs(story: PoolStory, durationMs: number): number {
  let end = Math.max(durationMs, 1);
  for (const p of story.points) if (p.tMs > end) end = p.tMs;
  for (const g of story.gauges) if (g.tMs > end) end = g.tMs;
  return end;
}

/** Workers over time as a step line, the shortages shaded behind it. */
function PoolTimeline({ story, durationMs }: { story: PoolStory; durationMs: number }): ReactElement {
  const workers: PoolPoint[] = story.points.filter((p) => p.kind !== 'adjustment');
  const end = storyEndMs(story, durationMs);
  const x = (ms: number): number => (ms / end) * WIDTH;
  const path = stepPath(workers, (p) => p.threads, x, story.starvation.maxThreads, HEIGHT - 12);
  return (
    <>
      <p className="hint pool-caption">{`Workers: at most ${story.starvation.maxThreads}`}</p>
      <svg className="pool-timeline" data-testid="pool-timeline" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" height={HEIGHT} preserveAspectRatio="none" role="img"
        aria-label={`Thread-pool workers over ${(end / 1000).toFixed(1)} s, at most ${story.starvation.maxThreads}`}>
        {story.starvation.shortages.map((s) => (
          <rect key={s.startMs} data-testid="pool-shortage" x={x(s.startMs)} y={0} width={Math.max(1, x(s.endMs) - x(s.startMs))} height={HEIGHT} fill="rgba(220, 80, 60, 0.18)">
            <title>{`Short of threads ${(s.startMs / 1000).toFixed(2)}–${(s.endMs / 1000).toFixed(2)} s: ${s.injections} injected`}</title>
          </rect>
        ))}
        <path d={path} fill="none" stroke="currentColor" strokeWidth={1.5} vectorEffect="non-scaling-stroke" />
      </svg>
    </>
  );
}

/** A step line of `value` over `points` (those without a value skipped), `top` reaching `span` above the foot, held to the right edge. */
function stepPath<P extends { tMs: number }>(points: readonly P[], value: (p: P) => number | null, x: (ms: number) => number, top: number, span: number): string {
  const y = (n: number): number => HEIGHT - 4 - (n / Math.max(top, 1)) * span;
  let path = '';
  for (const p of points) {
    const v = value(p);
    if (v === null) continue;
    path += path === '' ? `M${x(p.tMs)},${y(v)}` : `H${x(p.tMs)}V${y(v)}`;
  }
  return path === '' ? path : `${path}H${WIDTH}`;
}

/** The queue's length (solid) and the work items completed a second (dashed), each on its own scale, on the workers' time axis. */
function PoolQueue({ story, durationMs }: { story: PoolStory; durationMs: number }): ReactElement {
  const g = story.gauges;
  const end = storyEndMs(story, durationMs);
  const x = (ms: number): number => (ms / end) * WIDTH;
  const maxQueue = story.starvation.maxQueueLength ?? 0;
  const maxDone = g.reduce((m, p) => (p.completedPerS !== null && p.completedPerS > m ? p.completedPerS : m), 0);
  return (
    <>
      <p className="hint pool-caption">{`Queue, once a second: up to ${maxQueue} work items waiting (solid); up to ${maxDone} completed a second (dashed)`}</p>
      <svg className="pool-timeline" data-testid="pool-queue" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" height={HEIGHT} preserveAspectRatio="none" role="img"
        aria-label={`Thread-pool queue once a second: up to ${maxQueue} work items waiting, up to ${maxDone} completed a second`}>
        <path d={stepPath(g, (p) => p.queueLength, x, maxQueue, HEIGHT - 20)} fill="none" stroke="currentColor" strokeWidth={1.5} vectorEffect="non-scaling-stroke" />
        <path d={stepPath(g, (p) => p.completedPerS, x, maxDone, HEIGHT - 20)} fill="none" stroke="currentColor" strokeOpacity={0.55} strokeDasharray="4 3" strokeWidth={1.2} vectorEffect="non-scaling-stroke" />
      </svg>
    </>
  );
}

export function ThreadPoolView(): ReactElement {
  const story = useAppState((s) => s.recordingViews.pool);
  const durationMs = useAppState((s) => s.summary?.durationMs ?? 0);
  const [picked, setPicked] = useState<number | null>(null);
  if (story === null) return <div className="pool-view"><p className="empty">Waiting for data…</p></div>;
  const s = story.starvation;
  const b = story.blocking;
  const site = picked !== null ? b.sites[picked] : undefined;
  return (
    <div className="pool-view gc-view" data-testid="pool-view">
      <p className={s.starved ? 'strong' : ''} data-testid="pool-diagnosis">{s.diagnosis}</p>
      {s.poolEvents
        ? <><PoolTimeline story={story} durationMs={durationMs} />{story.gauges.length > 0 && <PoolQueue story={story} durationMs={durationMs} />}</>
        : <p className="empty" data-testid="pool-no-events">No thread-pool events in this recording: record with --requests (.NET 8 or later) for the pool's workers and shortages.</p>}
      {b.sites.length > 0 && <p className="hint" data-testid="pool-waits-note">{b.runtimeWaits.note}</p>}
      {b.sites.length === 0
        ? <p className="empty" data-testid="pool-no-sites">{b.poolThreads === 0 ? 'No wall samples of thread-pool threads in this recording.' : 'No pool thread was seen blocked.'}</p>
        : (
          <table className="grid compact" data-testid="pool-sites">
            <thead>
              <tr><th>Site</th><th>Waiting on</th><th className="num">Wait ms</th><th className="num">Share</th><th className="num">Threads</th><th>From</th></tr>
            </thead>
            <tbody>
              {b.sites.map((row, i) => (
                <tr key={`${row.site}\u0000${row.waitingOn}`} data-testid="pool-site-row" className={i === picked ? 'selected' : ''} onClick={() => setPicked(i === picked ? null : i)} style={{ cursor: 'pointer' }}>
                  <td data-testid="pool-site">{row.site}</td>
                  <td data-testid="pool-waiting-on">{row.waitingOn}</td>
                  <td className="num" data-testid="pool-wait-ms">{row.waitMs.toFixed(1)}</td>
                  <td className="num" data-testid="pool-share">{formatPercent(row.share)}</td>
                  <td className="num" data-testid="pool-threads">{row.threads}</td>
                  <td data-testid="pool-from">{row.from === 'runtime waits' ? `${row.waits} runtime waits (${row.waitSources.join(', ')})` : 'wall samples'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      {site !== undefined && (
        <div className="pool-stacks" data-testid="pool-stacks">
          <p className="hint">{`Stacks of ${site.site} waiting on ${site.waitingOn}, root first, heaviest first:`}</p>
          {site.stacks.slice(0, 10).map((st, i) => (
            <details key={i} open={i === 0} data-testid="pool-stack">
              <summary>{`${st.waitMs.toFixed(1)} ms`}</summary>
              <ol className="stack-frames">{st.frames.map((f, j) => <li key={j}>{f}</li>)}</ol>
            </details>
          ))}
        </div>
      )}
    </div>
  );
}
