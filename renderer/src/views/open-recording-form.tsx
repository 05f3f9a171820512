// "Open recording…": a recording file's path, typed (a page in a browser cannot learn paths) or,
// in the Electron shell, picked in the native dialog; the file opens as a stopped session.

import { useState, type FormEvent, type ReactElement } from 'react';
import { OPENABLE_EXTENSIONS } from '../../../structs/api/contract.js';
import { formatBytes, formatCount } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

interface Props {
  onClose(): void;
}

export function OpenRecordingForm({ onClose }: Props): ReactElement {
  const ws = useWorkstation();
  const opening = useAppState((s) => s.opening);
  const [path, setPath] = useState('');

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (path.trim() === '') {
      ws.showError('Type the full path of a recording file to open.');
      return;
    }
    void ws.sessions.openRecording(path.trim());
  };

  return (
    <form className="launch-form open-form" onSubmit={submit} data-testid="open-form">
      <label className="wide">
        Recording file (full path)
        <input
          value={path} onChange={(e) => setPath(e.target.value)} data-testid="open-path" spellCheck={false}
          placeholder="/home/me/traces/orders.nettrace"
        />
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={opening !== null} data-testid="open-submit">Open</button>
        {ws.sessions.canChooseFile && (
          <button type="button" disabled={opening !== null} data-testid="open-browse" onClick={() => void ws.sessions.chooseAndOpenRecording()}>Browse…</button>
        )}
        {opening === null && <button type="button" onClick={onClose}>Close</button>}
        {opening !== null ? (
          <span className="open-progress" data-testid="open-progress">
            {opening.cancelling ? 'Cancelling' : opening.phase === 'reading' ? 'Reading' : 'Preparing'}…
            <progress max={opening.total > 0 ? opening.total : undefined} value={opening.total > 0 ? opening.done : undefined} />
            {opening.total > 0 && (opening.phase === 'reading'
              ? `${formatBytes(opening.done)} of ${formatBytes(opening.total)}`
              : `${formatCount(opening.done)} of ${formatCount(opening.total)} samples`)}
            <button type="button" data-testid="open-cancel" disabled={opening.cancelling} onClick={() => void ws.sessions.cancelOpen()}>Cancel</button>
          </span>
        ) : (
          <span className="hint">
            {OPENABLE_EXTENSIONS.join(' ')} files, from clrscope or another tool (dotnet-trace&apos;s .nettrace or speedscope, a pprof profile), known by their content whatever their names.
          </span>
        )}
      </div>
    </form>
  );
}
