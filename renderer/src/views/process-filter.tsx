// Which processes' threads the views count, in a recording of several processes (a launch with
// child processes): a drop-down of the processes with their CPU and wall totals, beside the
// thread filter. Shown only when the recording has more than one process.

import type { ReactElement } from 'react';
import type { ProcessSummary, ThreadSummary } from '../worker/protocol.js';
import { ChecklistDropdown } from './checklist-dropdown.js';
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
  if (processes.length < 2) return null;
  const list = rows(processes, summary?.threads ?? []);
  return (
    <ChecklistDropdown
      testId="flame-process-filter"
      optionTestId="flame-process-option"
      label={selected === null ? 'All processes' : `${selected.length} of ${list.length} processes`}
      columns={['process', '#threads', '#CPU', '#wall']}
      rows={list.map((p) => ({
        id: p.pid,
        data: { 'data-pid': p.pid },
        cells: [p.name === '' ? `pid ${p.pid}` : `${p.name} ${p.pid}`, p.threads, formatNs(p.cpuNs), formatNs(p.wallNs)],
      }))}
      selected={selected}
      onChange={(processIds) => ws.view.setFlameOptions({ processIds })}
    />
  );
}
