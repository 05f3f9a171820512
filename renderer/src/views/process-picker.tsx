// The start screen: run the demo, launch a program, pick a running .NET process or open a
// recording file; and the recordings made so far.

import { useState, type ReactElement } from 'react';
import { KeepWindowInput } from './keep-window-input.js';
import { LaunchForm } from './launch-form.js';
import { OpenRecordingForm } from './open-recording-form.js';
import { ProcessTable } from './process-table.js';
import { SessionsList } from './sessions-list.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function ProcessPicker(): ReactElement {
  const ws = useWorkstation();
  const starting = useAppState((s) => s.starting);
  const [intervalMs, setIntervalMs] = useState(10);
  // For the session Launch or Attach starts: null keeps the whole recording in the views.
  const [keepMinutes, setKeepMinutes] = useState<number | null>(null);
  const [launching, setLaunching] = useState(false);
  const [opening, setOpening] = useState(false);
  return (
    <div className="picker">
      <section className="picker-main">
        <div className="demo-card">
          <div>
            <h2>New to clrscope?</h2>
            <p>Start a small .NET order service under the profiler and watch its flame graph fill live.</p>
          </div>
          <button type="button" className="primary big" data-testid="run-demo" disabled={starting} onClick={() => void ws.sessions.launchDemo()}>
            ▶ Run the demo
          </button>
        </div>
        <div className="toolbar">
          <h2 className="grow">.NET processes</h2>
          <label className="inline">
            Sampling every
            <input
              type="number" min={1} max={1000} value={intervalMs} className="narrow" data-testid="interval"
              onChange={(e) => setIntervalMs(Math.min(1000, Math.max(1, Number(e.target.value) || 10)))}
            />
            ms
          </label>
          <KeepWindowInput minutes={keepMinutes} onChange={setKeepMinutes} testId="keep-window" />
          <button type="button" data-testid="launch-open" onClick={() => setLaunching(!launching)} aria-expanded={launching}>Launch…</button>
          <button type="button" data-testid="recording-open" onClick={() => setOpening(!opening)} aria-expanded={opening}>Open recording…</button>
        </div>
        {launching && <LaunchForm intervalMs={intervalMs} onIntervalChange={setIntervalMs} keepMinutes={keepMinutes} onClose={() => setLaunching(false)} />}
        {opening && <OpenRecordingForm onClose={() => setOpening(false)} />}
        <ProcessTable intervalMs={intervalMs} keepMinutes={keepMinutes} />
      </section>
      <aside className="picker-side">
        <SessionsList />
      </aside>
    </div>
  );
}
