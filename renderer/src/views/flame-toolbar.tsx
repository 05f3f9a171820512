// The flame graph's options: metric, time window, threads (and processes, when the recording has
// several), search, icicle and per-thread or per-process roots.

import type { ReactElement } from 'react';
import { eventMetricInfo, isEventMetric, type EventMetric } from '../../../structs/profile/event-metrics.js';
import { DEFAULT_LAST_SECONDS, type FlameOptions } from '../state/app-state.js';
import { describeWindow } from '../state/view-queries.js';
import { ProcessFilter } from './process-filter.js';
import { ThreadFilter } from './thread-filter.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const LAST_CHOICES = [5, 10, 30, 60, 300];
const NO_EVENTS: readonly EventMetric[] = [];

function windowValue(o: FlameOptions): string {
  return o.window.kind === 'last' ? 'last' : o.window.kind;
}

/** The sample type and the time window, shared by every view that looks at samples. */
export function MetricAndWindow(): ReactElement {
  const ws = useWorkstation();
  const o = useAppState((s) => s.flameOptions);
  const eventMetrics = useAppState((s) => s.summary?.eventMetrics ?? NO_EVENTS);
  const set = (patch: Partial<FlameOptions>): void => ws.view.setFlameOptions(patch);
  return (
    <>
      <div className="segmented" role="group" aria-label="Metric">
        <button type="button" className={o.metric === 'cpu' ? 'on' : ''} aria-pressed={o.metric === 'cpu'} data-testid="metric-cpu" onClick={() => set({ metric: 'cpu' })}>CPU</button>
        <button type="button" className={o.metric === 'wall' ? 'on' : ''} aria-pressed={o.metric === 'wall'} data-testid="metric-wall" onClick={() => set({ metric: 'wall' })}>Wall</button>
      </div>
      {eventMetrics.length > 0 && (
        <select
          value={isEventMetric(o.metric) ? o.metric : ''} data-testid="metric-events" aria-label="Event type"
          onChange={(e) => { if (isEventMetric(e.target.value)) set({ metric: e.target.value }); }}
        >
          <option value="">Events…</option>
          {eventMetrics.map((m) => <option key={m} value={m}>{eventMetricInfo(m).title}</option>)}
        </select>
      )}
      {!isEventMetric(o.metric) && o.endpoint != null && (
        <button type="button" className="chip" data-testid="endpoint-clear" title="Every sample again" onClick={() => set({ endpoint: null })}>
          endpoint {o.endpoint} ✕
        </button>
      )}
      {!isEventMetric(o.metric) && o.requests != null && (
        <button type="button" className="chip" data-testid="requests-clear" title="Every sample again" onClick={() => set({ requests: null })}>
          {o.requests.label} ✕
        </button>
      )}
      {isEventMetric(o.metric) && o.eventType !== null && (
        <button type="button" className="chip" data-testid="event-type-clear" title="Every type again" onClick={() => set({ eventType: null })}>
          type {o.eventType === '' ? '(unnamed)' : o.eventType} ✕
        </button>
      )}
      <WindowAndThreads />
    </>
  );
}

/** The time window, the processes and the threads: what the type and exceptions tables share with the flame graph. */
export function WindowAndThreads(): ReactElement {
  const ws = useWorkstation();
  const o = useAppState((s) => s.flameOptions);
  const set = (patch: Partial<FlameOptions>): void => ws.view.setFlameOptions(patch);
  const lastSeconds = o.window.kind === 'last' ? o.window.seconds : DEFAULT_LAST_SECONDS;
  // A session that keeps only its last minutes has no whole recording in the views: say what "all" is.
  const keep = useAppState((s) => s.summary?.keepMinutes ?? null);
  return (
    <>
      <select
        value={windowValue(o)} data-testid="window-select" aria-label="Time window"
        onChange={(e) => set({ window: e.target.value === 'last' ? { kind: 'last', seconds: lastSeconds } : { kind: 'all' } })}
      >
        <option value="all">{keep === null ? 'Whole recording' : `All kept: the last ${keep} min`}</option>
        <option value="last">Last…</option>
        {o.window.kind === 'range' && <option value="range">{describeWindow(o.window)}</option>}
      </select>
      {o.window.kind === 'last' && (
        <select value={lastSeconds} data-testid="window-seconds" aria-label="Seconds" onChange={(e) => set({ window: { kind: 'last', seconds: Number(e.target.value) } })}>
          {LAST_CHOICES.map((n) => <option key={n} value={n}>{n} s</option>)}
        </select>
      )}
      {o.window.kind === 'range' && (
        <button type="button" className="chip" data-testid="window-clear" title="Back to the whole recording" onClick={() => set({ window: { kind: 'all' } })}>
          range {describeWindow(o.window)} ✕
        </button>
      )}
      <ProcessFilter />
      <ThreadFilter />
    </>
  );
}

/** The search box: the flame graph highlights matches, the functions table shows only them. */
export function SearchBox(): ReactElement {
  const ws = useWorkstation();
  const search = useAppState((s) => s.flameOptions.search);
  return (
    <input
      type="search" className="search" placeholder="Search frames, or /regex/" value={search} data-testid="flame-search"
      onChange={(e) => ws.view.setFlameOptions({ search: e.target.value })} spellCheck={false}
    />
  );
}

export function FlameToolbar({ onResetZoom, zoomed }: { onResetZoom(): void; zoomed: boolean }): ReactElement {
  const ws = useWorkstation();
  const o = useAppState((s) => s.flameOptions);
  const hasAsync = useAppState((s) => s.summary?.hasAsync === true);
  const severalProcesses = useAppState((s) => (s.summary?.processes.length ?? 0) > 1);
  const set = (patch: Partial<FlameOptions>): void => ws.view.setFlameOptions(patch);
  return (
    <div className="toolbar flame-toolbar">
      <MetricAndWindow />
      {severalProcesses && (
        <label className="check" title="One root per process">
          <input type="checkbox" checked={o.groupByProcess} data-testid="group-by-process" onChange={(e) => set({ groupByProcess: e.target.checked, ...(e.target.checked ? { groupByThread: false } : {}) })} />
          by process
        </label>
      )}
      <label className="check">
        <input
          type="checkbox" checked={o.groupByThread && !(severalProcesses && o.groupByProcess)} data-testid="group-by-thread"
          onChange={(e) => set({ groupByThread: e.target.checked, ...(e.target.checked ? { groupByProcess: false } : {}) })}
        />
        by thread
      </label>
      <label className="check">
        <input type="checkbox" checked={o.inverted} data-testid="inverted" onChange={(e) => set({ inverted: e.target.checked })} />
        inverted
      </label>
      {hasAsync && (
        <label className="check" title="Awaiting methods above each async continuation ([await] frames), instead of the thread pool's frames">
          <input type="checkbox" checked={o.asyncStacks} data-testid="async-stacks" onChange={(e) => set({ asyncStacks: e.target.checked })} />
          async stacks
        </label>
      )}
      <button type="button" disabled={!zoomed} data-testid="zoom-reset" onClick={onResetZoom}>Reset zoom</button>
      <SearchBox />
    </div>
  );
}
