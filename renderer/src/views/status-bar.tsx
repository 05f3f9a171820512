// The recording at a glance: what the worker has decoded so far.

import type { ReactElement } from 'react';
import { formatBytes, formatCount, formatMs } from './format.js';
import { useAppState } from './use-app-state.js';
import { ownCostPercent, ownCostText, ownCostTotalNs } from '../../../structs/profile/own-cost.js';
import type { OwnCost } from '../../../structs/wire/records.js';

function ownCostShare(c: OwnCost): string {
  const pct = ownCostPercent(c);
  return pct === undefined ? '' : ` (${pct.toFixed(1)}% of the program's)`;
}

export function StatusBar(): ReactElement {
  const summary = useAppState((s) => s.summary);
  const bytes = useAppState((s) => s.streamBytes);
  const selected = useAppState((s) => s.selectedSessionId);
  // The session's pid is the host's; a process in a container recorded its own (structs/api/contract.ts).
  const sessionPid = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.pid ?? null);
  if (selected === null || summary === null) {
    return <footer className="statusbar" data-testid="status-bar"><span>{selected === null ? 'No recording selected' : 'Waiting for data…'}</span></footer>;
  }
  return (
    <footer className="statusbar" data-testid="status-bar">
      <span data-testid="status-samples">{formatCount(summary.sampleCount)} samples</span>
      <span data-testid="status-duration">{formatMs(summary.durationMs)}</span>
      {summary.keepMinutes !== null && (
        <span data-testid="status-kept">{summary.keptFromMs === null ? `all kept (under ${summary.keepMinutes} min)` : `kept from ${formatMs(summary.keptFromMs)}`}</span>
      )}
      <span>{summary.threads.length} threads</span>
      <span>{summary.pauses.length} pauses</span>
      {summary.droppedSamples > 0 && <span className="warn">{formatCount(summary.droppedSamples)} dropped</span>}
      {summary.stacklessCpuMs > 0 && (
        <span className="warn" data-testid="status-stackless-cpu" title="Threads that blocked clrscope's signal (or whose captures were lost) used this CPU: it is charged to each thread's last stack under a [CPU without a stack: …] frame.">
          {formatMs(summary.stacklessCpuMs)} CPU without a fresh stack
        </span>
      )}
      {summary.signalLostMs !== null && (
        <span className="warn" data-testid="status-signal-lost" title="A library in the program took over clrscope's signal (SIGURG, or CLRSCOPE_SIGNAL's): CPU and wall sampling stopped; events, GC pauses and counters go on. Start the program with CLRSCOPE_SIGNAL set to a free real-time signal (e.g. 42) to sample it.">
          sampling stopped at {formatMs(summary.signalLostMs)}: signal taken over
        </span>
      )}
      {summary.ownCost !== null && (
        <span data-testid="status-own-cost" title={`clrscope's own cost: ${ownCostText(summary.ownCost)}. Handler, callbacks, runtime events and event stacks are time on the program's threads; symbols, writer and sampler are clrscope's sampler thread.`}>
          clrscope {formatMs(ownCostTotalNs(summary.ownCost) / 1e6)} CPU{ownCostShare(summary.ownCost)}
        </span>
      )}
      <span>{formatBytes(bytes)} received</span>
      {summary.pid !== null && (
        <span data-testid="status-pid">
          {sessionPid !== null && sessionPid !== summary.pid ? `pid ${sessionPid} (pid ${summary.pid} in its container)` : `pid ${summary.pid}`}
        </span>
      )}
      {summary.runtimeVersion !== null && <span>.NET {summary.runtimeVersion}</span>}
      <span>every {summary.intervalNs / 1e6} ms</span>
      {summary.ended && <span>ended</span>}
    </footer>
  );
}
