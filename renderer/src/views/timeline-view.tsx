// The threads over time: when each ran on a CPU and when it waited, with the GC pauses laid
// across. A dragged range becomes the flame graph's window (and every view's); a click shows
// that thread's stack at that moment.

import { useCallback, type ReactElement } from 'react';
import { describeWindow } from '../state/view-queries.js';
import { FoldBar } from './fold-bar.js';
import { noSamples } from './empty-reasons.js';
import { formatMs, formatNs } from './format.js';
import { TimelineCanvas } from './timeline-canvas.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function TimelineView(): ReactElement {
  const ws = useWorkstation();
  const timeline = useAppState((s) => s.timeline);
  const summary = useAppState((s) => s.summary);
  const live = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'recording');
  const sampleCount = summary?.sampleCount;
  const window = useAppState((s) => s.flameOptions.window);
  const stack = useAppState((s) => s.timelineStack);
  const range = window.kind === 'range' ? window : null;
  const onPlotWidth = useCallback((w: number) => ws.view.setTimelineBuckets(w), [ws]);
  const thread = stack === null ? undefined : timeline?.threads.find((t) => t.id === stack.threadId);
  return (
    <div className="timeline-view">
      <div className="toolbar">
        <span className="legend">
          <span><i className="swatch cpu" />on a CPU</span>
          <span><i className="swatch wait" />waiting</span>
          <span><i className="swatch g-2" />GC pause</span>
        </span>
        <span className="hint grow">Drag to set the time window of every view; click a thread to see its stack at that moment.</span>
        {range !== null && (
          <>
            <span className="chip on" data-testid="timeline-range">{describeWindow(range)}</span>
            <button type="button" data-testid="timeline-range-open" onClick={() => ws.view.setTab('flame')}>Open in flame graph</button>
            <button type="button" data-testid="timeline-range-clear" onClick={() => ws.view.setFlameOptions({ window: { kind: 'all' } })}>Clear</button>
          </>
        )}
      </div>
      <FoldBar />
      <div className="timeline-body">
        {timeline === null && <p className="empty">Waiting for samples…</p>}
        {timeline !== null && timeline.threads.length === 0 && <p className="empty" data-testid="timeline-empty">{noSamples(sampleCount, live)}</p>}
        {timeline !== null && timeline.threads.length > 0 && (
          <TimelineCanvas
            timeline={timeline} pauses={summary?.pauses ?? []} range={range} marker={stack}
            onPlotWidth={onPlotWidth} onRange={(from, to) => ws.view.setRange(from, to)} onPoint={(id, ms) => void ws.showStackAt(id, ms)}
          />
        )}
      </div>
      {stack !== null && (
        <aside className="thread-stack timeline-stack" data-testid="timeline-stack">
          <div className="toolbar">
            <h3 className="grow" data-testid="timeline-stack-title">
              {thread?.name ?? `thread ${stack.threadId}`}
              <span className="hint"> at {formatMs(stack.atMs)}: CPU {formatNs(stack.cpuNs)}, wall {formatNs(stack.wallNs)} since its previous sample</span>
            </h3>
          </div>
          <ol className="frames full" data-testid="timeline-stack-frames">
            {stack.frames.map((f, i) => <li key={i} className="frame" title={f}>{f}</li>)}
          </ol>
        </aside>
      )}
    </div>
  );
}
