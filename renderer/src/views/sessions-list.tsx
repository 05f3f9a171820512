// Recordings made in this workstation run; picking one shows it in every view.

import type { ReactElement } from 'react';
import { sessionTitle, StateBadge } from './session-bar.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function SessionsList(): ReactElement {
  const ws = useWorkstation();
  const sessions = useAppState((s) => s.sessions);
  const selected = useAppState((s) => s.selectedSessionId);
  return (
    <div className="sessions" data-testid="sessions-list">
      <h2>Recordings</h2>
      {sessions.length === 0 && <p className="empty">None yet: the recordings you start appear here.</p>}
      <ul>
        {[...sessions].reverse().map((s) => (
          <li key={s.id}>
            <button
              type="button"
              className={s.id === selected ? 'session-row selected' : 'session-row'}
              data-testid="session-row"
              data-session-id={s.id}
              onClick={() => { ws.select(s.id); ws.setTab('flame'); }}
            >
              <span className="session-label" title={s.label}>{sessionTitle(s)}</span>
              <span className="session-meta">
                <StateBadge state={s.state} />
                <span>{new Date(s.startedAtMs).toLocaleTimeString()}</span>
                <span>{s.attached ? 'attached' : 'launched'}</span>
                <span>{s.intervalMs} ms</span>
              </span>
              {s.message !== null && <span className="session-note">{s.message}</span>}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
