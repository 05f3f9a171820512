// The local .NET processes, filtered as the user types; attachable ones can be picked.

import { useEffect, useMemo, useState, type ReactElement } from 'react';
import type { ProcessInfo } from '../../../structs/api/contract.js';
import { AsyncStacksSelect, asyncRequest, type AsyncStacksChoice } from './async-stacks-choice.js';
import { EventSwitches, useEventChoice } from './event-switches.js';
import { useAppState, useWorkstation } from './use-app-state.js';

function matches(p: ProcessInfo, words: string[]): boolean {
  const text = `${p.pid} ${p.name} ${p.commandLine} ${p.runtimeVersion ?? ''} ${p.container?.id ?? ''}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

export function ProcessTable({ intervalMs, keepMinutes }: { intervalMs: number; keepMinutes: number | null }): ReactElement {
  const ws = useWorkstation();
  const processes = useAppState((s) => s.processes);
  const loading = useAppState((s) => s.processesLoading);
  const starting = useAppState((s) => s.starting);
  const [filter, setFilter] = useState('');
  const [asyncStacks, setAsyncStacks] = useState<AsyncStacksChoice>('auto');
  const [events, setEvents] = useEventChoice();
  useEffect(() => { void ws.sessions.refreshProcesses(); }, [ws]);
  const shown = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter((w) => w !== '');
    return (processes ?? []).filter((p) => matches(p, words));
  }, [processes, filter]);

  return (
    <div className="process-list">
      <div className="toolbar">
        <input
          type="search" className="grow" placeholder="Filter by pid, name or command line" value={filter}
          onChange={(e) => setFilter(e.target.value)} data-testid="process-filter" autoFocus
        />
        <AsyncStacksSelect value={asyncStacks} onChange={setAsyncStacks} testId="attach-async" auto />
        <EventSwitches choice={events} onChange={setEvents} prefix="attach" />
        <button type="button" onClick={() => void ws.sessions.refreshProcesses()} disabled={loading} data-testid="process-refresh">
          {loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <div className="table-scroll">
        <table className="grid" data-testid="process-table">
          <thead>
            <tr><th className="num">pid</th><th>name</th><th>command line</th><th>runtime</th><th>clrscope</th><th /></tr>
          </thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.pid} data-testid="process-row" data-pid={p.pid} className={p.attachable ? '' : 'muted'}>
                <td className="num">{p.pid}</td>
                <td>
                  {p.name}
                  {p.container !== null && (
                    // In a container: which one, and the pid its own tools show.
                    <span className="badge" data-testid="process-container" title={`In a container (${p.container.cgroup ?? p.container.id}); pid ${p.container.pid} there, ${p.pid} here.`}>
                      {p.container.id} · pid {p.container.pid}
                    </span>
                  )}
                </td>
                <td className="cmdline" title={p.commandLine}>{p.commandLine}</td>
                <td>{p.runtimeVersion ?? '–'}</td>
                <td>{p.clrscopeLoaded ? <span className="badge loaded">loaded</span> : ''}</td>
                <td className="actions">
                  {p.attachable && (
                    <button
                      type="button" disabled={starting} data-testid="process-attach" onClick={() => void ws.sessions.attach({ pid: p.pid, intervalMs, ...events, ...asyncRequest(asyncStacks), ...(keepMinutes !== null ? { keepMinutes } : {}) })}
                      title={p.eventPipeOnly ? `${p.reason ?? ''} clrscope records it through the runtime's EventPipe instead; CPU time is estimated.` : undefined}
                    >
                      {p.eventPipeOnly ? 'Attach (EventPipe)' : 'Attach'}
                    </button>
                  )}
                  {!p.attachable && <span className="reason" title={p.reason ?? ''}>{p.reason ?? 'not attachable'}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {processes !== null && shown.length === 0 && (
          <p className="empty" data-testid="process-empty">
            {processes.length === 0 ? 'No .NET processes are running. Launch one, or run the demo.' : 'No process matches the filter.'}
          </p>
        )}
        {processes === null && <p className="empty">Looking for .NET processes…</p>}
      </div>
    </div>
  );
}
