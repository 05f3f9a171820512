// Which threads the flame graph counts: a drop-down of the recording's threads with their
// CPU and wall totals, busiest first.

import { useEffect, useRef, useState, type ReactElement } from 'react';
import { formatNs } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function ThreadFilter(): ReactElement {
  const ws = useWorkstation();
  const summary = useAppState((s) => s.summary);
  const selected = useAppState((s) => s.flameOptions.threadIds);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent): void => {
      if (box.current !== null && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);

  const threads = [...(summary?.threads ?? [])].sort((a, b) => b.cpuNs - a.cpuNs || b.wallNs - a.wallNs);
  const chosen = new Set(selected ?? threads.map((t) => t.id));
  const toggle = (id: number): void => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    ws.setFlameOptions({ threadIds: next.size === threads.length ? null : [...next].sort((a, b) => a - b) });
  };
  const label = selected === null ? 'All threads' : `${selected.length} of ${threads.length} threads`;

  return (
    <div className="dropdown" ref={box}>
      <button type="button" data-testid="thread-filter" aria-expanded={open} onClick={() => setOpen(!open)}>{label} ▾</button>
      {open && (
        <div className="dropdown-panel" data-testid="thread-filter-panel">
          <div className="dropdown-actions">
            <button type="button" className="link" onClick={() => ws.setFlameOptions({ threadIds: null })}>all</button>
            <button type="button" className="link" onClick={() => ws.setFlameOptions({ threadIds: [] })}>none</button>
          </div>
          <table className="grid compact">
            <thead><tr><th /><th>thread</th><th className="num">tid</th><th className="num">CPU</th><th className="num">wall</th></tr></thead>
            <tbody>
              {threads.map((t) => (
                <tr key={t.id} className={t.ended ? 'muted' : ''}>
                  <td><input type="checkbox" checked={chosen.has(t.id)} onChange={() => toggle(t.id)} data-testid="thread-option" data-thread-name={t.name} /></td>
                  <td>{t.name === '' ? `thread ${t.id}` : t.name}</td>
                  <td className="num">{t.osTid}</td>
                  <td className="num">{formatNs(t.cpuNs)}</td>
                  <td className="num">{formatNs(t.wallNs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
