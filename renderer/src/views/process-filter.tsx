// Which processes' threads the views count, in a recording of several processes (a launch with
// child processes): a drop-down of the processes with their CPU and wall totals, beside the
// thread filter. Shown only when the recording has more than one process.

import { useEffect, useRef, useState, type ReactElement } from 'react';
import type { ProcessSummary, ThreadSummary } from '../worker/protocol.js';
import { formatNs } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const NO_PROCESSES: readonly ProcessSummary[] = [];

interface ProcessRow extends ProcessSummary {
  threads: number;
  cpuNs: number;
  wallNs: number;
}

function rows(processes: readonly ProcessSummary[], threads: readonly ThreadSummary[]): ProcessRow[] {
  const out = processes.map((p) => ({ ...p, threads: 0, cpuNs: 0, wallNs: 0 }));
  const byPid = new Map(out.map((r) => [r.pid, r]));
  for (const t of threads) {
    const r = t.pid === null ? undefined : byPid.get(t.pid);
    if (r === undefined) continue;
    r.threads++;
    r.cpuNs += t.cpuNs;
    r.wallNs += t.wallNs;
  }
  return out;
}

export function ProcessFilter(): ReactElement | null {
  const ws = useWorkstation();
  const processes = useAppState((s) => s.summary?.processes ?? NO_PROCESSES);
  const summary = useAppState((s) => s.summary);
  const selected = useAppState((s) => s.flameOptions.processIds);
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
  if (processes.length < 2) return null;

  const list = rows(processes, summary?.threads ?? []);
  const chosen = new Set(selected ?? list.map((p) => p.pid));
  const toggle = (pid: number): void => {
    const next = new Set(chosen);
    if (next.has(pid)) next.delete(pid);
    else next.add(pid);
    ws.setFlameOptions({ processIds: next.size === list.length ? null : [...next].sort((a, b) => a - b) });
  };
  const label = selected === null ? 'All processes' : `${selected.length} of ${list.length} processes`;

  return (
    <div className="dropdown" ref={box}>
      <button type="button" data-testid="flame-process-filter" aria-expanded={open} onClick={() => setOpen(!open)}>{label} ▾</button>
      {open && (
        <div className="dropdown-panel" data-testid="flame-process-filter-panel">
          <div className="dropdown-actions">
            <button type="button" className="link" onClick={() => ws.setFlameOptions({ processIds: null })}>all</button>
            <button type="button" className="link" onClick={() => ws.setFlameOptions({ processIds: [] })}>none</button>
          </div>
          <table className="grid compact">
            <thead><tr><th /><th>process</th><th className="num">threads</th><th className="num">CPU</th><th className="num">wall</th></tr></thead>
            <tbody>
              {list.map((p) => (
                <tr key={p.pid}>
                  <td><input type="checkbox" checked={chosen.has(p.pid)} onChange={() => toggle(p.pid)} data-testid="flame-process-option" data-pid={p.pid} /></td>
                  <td>{p.name === '' ? `pid ${p.pid}` : `${p.name} ${p.pid}`}</td>
                  <td className="num">{p.threads}</td>
                  <td className="num">{formatNs(p.cpuNs)}</td>
                  <td className="num">{formatNs(p.wallNs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
