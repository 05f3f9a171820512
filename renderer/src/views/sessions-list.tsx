// Recordings made or opened in this workstation run; picking one shows it in every view.

import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../structs/api/contract.js';
import { isLive } from '../state/app-state.js';
import { ApproximateCpuBadge, sessionTitle, StateBadge } from './session-bar.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const SOURCE_TEXT: Record<SessionInfo['source'], string> = { launch: 'launched', attach: 'attached', file: 'opened file' };

export function SessionsList(): ReactElement {
  const ws = useWorkstation();
  const sessions = useAppState((s) => s.sessions);
  const selected = useAppState((s) => s.selectedSessionId);
  return (
    <div className="sessions" data-testid="sessions-list">
      <h2>Recordings</h2>
      {sessions.length === 0 && <p className="empty">None yet: the recordings you start or open appear here.</p>}
      <ul>
        {[...sessions].reverse().map((s) => (
          <li key={s.id} className="session-item">
            <button
              type="button"
              className={s.id === selected ? 'session-row selected' : 'session-row'}
              data-testid="session-row"
              data-session-id={s.id}
              onClick={() => { ws.select(s.id); ws.view.setTab('flame'); }}
            >
              <span className="session-label" title={s.label}>{sessionTitle(s)}</span>
              <span className="session-meta">
                <StateBadge state={s.state} />
                <span>{new Date(s.startedAtMs).toLocaleTimeString()}</span>
                <span>{SOURCE_TEXT[s.source]}</span>
                {s.intervalMs > 0 && <span>{s.intervalMs} ms</span>}
                {s.approximateCpu && <ApproximateCpuBadge />}
              </span>
              {s.message !== null && <span className="session-note">{s.message}</span>}
            </button>
            {!isLive(s) && (
              <button
                type="button"
                className="session-close"
                data-testid="session-close"
                title="Close this recording: the workstation forgets it and frees what it holds (export it first to keep it)"
                aria-label={`Close ${sessionTitle(s)}`}
                onClick={() => { void ws.sessions.closeSession(s.id); }}
              >
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
