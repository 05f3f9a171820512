// One button per export format of the format catalog, each with what the format keeps of the
// recording; a long export shows its progress, a finished one its path.

import { useState, type ReactElement } from 'react';
import { describeFold } from '../../../structs/analysis/fold-options.js';
import { EXPORT_EXTENSIONS } from '../../../structs/api/contract.js';
import { EXPORT_FORMATS, formatAbout } from '../../../structs/formats/catalog.js';
import { formatBytes, formatCount, formatMs } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function ExportView(): ReactElement {
  const ws = useWorkstation();
  const sessionId = useAppState((s) => s.selectedSessionId);
  const exports = useAppState((s) => s.exports);
  const sessions = useAppState((s) => s.sessions);
  const summary = useAppState((s) => s.summary);
  const session = sessions.find((s) => s.id === sessionId);
  const status = sessionId === null ? undefined : exports[sessionId];
  const running = status?.state === 'running';
  const fold = useAppState((s) => s.fold);
  const [folded, setFolded] = useState(false);
  return (
    <div className="export-view">
      {session !== undefined && (
        <p className="hint" data-testid="export-subject">
          The recording of <strong>{session.label}</strong>
          {summary !== null && <> as it is now: {formatMs(summary.durationMs)}, {formatCount(summary.sampleCount)} samples</>}
          {session.state === 'recording' && '; recording goes on while it is written'}.
        </p>
      )}
      <label className="check" title="Write the stacks as the views show them; without it exports keep every recorded frame">
        <input type="checkbox" checked={folded} data-testid="export-folded" onChange={(e) => setFolded(e.target.checked)} />
        apply the views' folding ({describeFold(fold)})
      </label>
      {/* Above the formats: below them the progress and its Cancel were out of sight at 1280×800. */}
      {status !== undefined && (
        <div className={`export-status ${status.state}`} data-testid="export-status" data-state={status.state}>
          {status.state === 'running' && (
            <>
              <span>{status.phase === 'reading' ? 'Reading the recording back' : `Exporting ${formatAbout(status.format).label}`}…</span>
              <progress data-testid="export-progress" max={status.total > 0 ? status.total : undefined} value={status.total > 0 ? status.done : undefined} />
              {status.total > 0 && <span>{Math.round((100 * status.done) / status.total)}%</span>}
              <button type="button" data-testid="export-cancel" disabled={status.cancelling === true} onClick={() => void ws.cancelExport()}>
                {status.cancelling === true ? 'Cancelling…' : 'Cancel'}
              </button>
            </>
          )}
          {status.state === 'done' && (
            <span>
              Wrote <code data-testid="export-path">{status.path}</code>
              {status.bytes !== null && <> ({formatBytes(status.bytes)})</>}
            </span>
          )}
          {status.state === 'failed' && <span data-testid="export-error">{status.message}</span>}
          {status.state === 'cancelled' && <span data-testid="export-cancelled">{status.message}</span>}
        </div>
      )}
      <div className="export-formats">
        {EXPORT_FORMATS.map((f) => (
          <div key={f} className="export-card">
            <button type="button" className="primary" disabled={running} data-testid={`export-${f}`} onClick={() => void ws.exportRecording(f, folded)}>
              Export {formatAbout(f).label} ({EXPORT_EXTENSIONS[f]})
            </button>
            <p className="hint" data-testid={`export-note-${f}`}>{formatAbout(f).note}</p>
          </div>
        ))}
      </div>
    </div>
  );
}
