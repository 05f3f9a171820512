// The top bar: which recording the views show (switchable), its state, where it came from when
// that was a file, whether its CPU times are estimates, and Stop.

import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../structs/api/contract.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { sessionTitle } from '../state/session-title.js';
import { KEPT_WINDOW_NOTE, KeepWindowSelect, keptWindowCaption } from './keep-window-input.js';

export { sessionTitle };

/** What the approximate-CPU badge means, whatever made the estimate (an imported file, an EventPipe fallback). */
export const APPROXIMATE_CPU_NOTE = 'This recording\'s CPU times are estimates counted from its samples, not CPU time measured per sample: compare frames with each other rather than reading them as exact times.';

export function ApproximateCpuBadge({ testId }: { testId?: string }): ReactElement {
  return <span className="badge approximate" data-testid={testId} title={APPROXIMATE_CPU_NOTE}>CPU estimated</span>;
}

export function StateBadge({ state, testId }: { state: SessionInfo['state']; testId?: string }): ReactElement {
  return <span className={`badge state-${state}`} data-testid={testId}>{state}</span>;
}

export function SessionBar({ onHelp }: { onHelp?(): void }): ReactElement {
  const ws = useWorkstation();
  const sessions = useAppState((s) => s.sessions);
  const selectedId = useAppState((s) => s.selectedSessionId);
  const selected = sessions.find((s) => s.id === selectedId);
  const live = selected !== undefined && (selected.state === 'recording' || selected.state === 'starting');
  return (
    <header className="topbar">
      <span className="brand">clrscope</span>
      <select
        className="session-select"
        data-testid="session-select"
        value={selectedId ?? ''}
        onChange={(e) => ws.select(e.target.value === '' ? null : e.target.value)}
        aria-label="Recording" title={selected === undefined ? undefined : `${sessionTitle(selected)} — ${selected.state}`}
      >
        <option value="">{sessions.length === 0 ? 'No recordings yet' : 'Choose a recording…'}</option>
        {[...sessions].reverse().map((s) => (
          <option key={s.id} value={s.id}>{`${sessionTitle(s)} — ${s.state}`}</option>
        ))}
      </select>
      {selected !== undefined && <StateBadge state={selected.state} testId="session-state" />}
      {selected?.source === 'file' && <span className="badge source-file" data-testid="session-source">file</span>}
      {selected?.approximateCpu === true && <ApproximateCpuBadge testId="session-approximate-cpu" />}
      {selected?.keepMinutes !== undefined && (
        <span className="badge kept-window" data-testid="kept-window" title={KEPT_WINDOW_NOTE}>{keptWindowCaption(selected.keepMinutes)}</span>
      )}
      {selected !== undefined && <KeepWindowSelect minutes={selected.keepMinutes ?? null} onChange={(m) => void ws.sessions.setKeepWindow(m)} testId="keep-window-select" />}
      {live && (
        <button type="button" className="danger" data-testid="session-stop" onClick={() => void ws.sessions.stop()}>Stop</button>
      )}
      {selected?.message != null && <span className="session-message" data-testid="session-message">{selected.message}</span>}
      {onHelp !== undefined && <button type="button" className="help-button" data-testid="help-open" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" onClick={onHelp}>?</button>}
    </header>
  );
}
