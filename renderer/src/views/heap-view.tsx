// The Heap tab: heap snapshots of the selected session's process ("Take snapshot") or of files
// (.gcdump, .clrheap, .clrscope), each compared with another if asked ("Compare with"); the types
// table (count, own and retained bytes, sortable, filterable), the paths from roots to the picked
// type, and the dominator tree. The snapshots live in the main process; state/heap-actions.ts asks.

import { useState, type FormEvent, type ReactElement } from 'react';
import { isLive } from '../state/app-state.js';
import { formatBytes, formatCount } from './format.js';
import { HeapPaths, HeapTree } from './heap-tree.js';
import { HeapTypesTable } from './heap-types-table.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const PHASES = { walking: 'The runtime is walking the heap', reading: 'Reading the file', analysing: 'Finding dominators and retained bytes' } as const;

function HeapToolbar(): ReactElement {
  const ws = useWorkstation();
  const heap = useAppState((s) => s.heap);
  const session = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId));
  const [path, setPath] = useState('');
  const [savePath, setSavePath] = useState('');
  const canTake = session !== undefined && isLive(session) && session.pid !== null && !heap.busy;
  const open = (e: FormEvent): void => {
    e.preventDefault();
    if (path.trim() === '') ws.showError('Type the full path of a .gcdump, .clrheap or .clrscope file to open.');
    else void ws.heap.open(path.trim());
  };
  const save = (e: FormEvent): void => {
    e.preventDefault();
    if (savePath.trim() !== '') void ws.heap.save(savePath.trim());
  };
  return (
    <div className="toolbar heap-toolbar">
      <button
        type="button" className="primary" disabled={!canTake} data-testid="heap-take" onClick={() => void ws.heap.take()}
        title={canTake ? `One blocking gen-2 collection of process ${session.pid} walks its heap` : 'Select a running session (launched or attached) to snapshot its process'}
      >
        Take snapshot
      </button>
      <form onSubmit={open} className="heap-open">
        <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/path/to/app.gcdump" spellCheck={false} data-testid="heap-open-path" />
        <button type="submit" disabled={heap.busy} data-testid="heap-open">Open file</button>
      </form>
      <label>
        Snapshot{' '}
        <select value={heap.snapshotId ?? ''} onChange={(e) => ws.heap.show(e.target.value, heap.baselineId)} data-testid="heap-snapshot" disabled={heap.snapshots.length === 0}>
          {heap.snapshotId === null && <option value="">(none)</option>}
          {heap.snapshots.map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
        </select>
      </label>
      <label>
        Compare with{' '}
        <select value={heap.baselineId ?? ''} onChange={(e) => ws.heap.setBaseline(e.target.value === '' ? null : e.target.value)} data-testid="heap-baseline" disabled={heap.snapshotId === null}>
          <option value="">(nothing)</option>
          {heap.snapshots.filter((s) => s.id !== heap.snapshotId).map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
        </select>
      </label>
      <form onSubmit={save} className="heap-save">
        <input value={savePath} onChange={(e) => setSavePath(e.target.value)} placeholder="/path/to/snapshot.clrheap" spellCheck={false} data-testid="heap-save-path" />
        <button type="submit" disabled={heap.snapshotId === null} data-testid="heap-save">Save</button>
      </form>
      <input
        className="search" value={heap.filter} onChange={(e) => ws.heap.setFilter(e.target.value)} placeholder="Filter types" data-testid="heap-filter" spellCheck={false}
      />
    </div>
  );
}

export function HeapView(): ReactElement {
  const ws = useWorkstation();
  const heap = useAppState((s) => s.heap);
  const shown = heap.snapshots.find((s) => s.id === heap.snapshotId);
  const baseline = heap.snapshots.find((s) => s.id === heap.baselineId);
  const progress = heap.progress;
  // A recording opened from a file, or a program that ended, has no process to walk: say so rather than point at a greyed button.
  const takeable = useAppState((s) => {
    const session = s.sessions.find((x) => x.id === s.selectedSessionId);
    return isLive(session) && session?.pid !== null;
  });
  return (
    <div className="functions-view heap-view">
      <HeapToolbar />
      {heap.busy && (
        <div className="hint" data-testid="heap-progress">
          {progress === null ? 'Starting…' : `${PHASES[progress.phase]}${progress.phase === 'walking' && progress.done > 0 ? `: ${formatCount(progress.done)} objects so far` : ''}…`}
          <progress max={progress !== null && progress.total > 0 ? progress.total : undefined} />
          {heap.jobId !== null && (
            <button type="button" onClick={() => void ws.heap.cancelTake()} data-testid="heap-cancel">Cancel</button>
          )}
        </div>
      )}
      <div className="hint" data-testid="heap-caption">
        {shown === undefined
          ? (takeable
            ? 'No snapshot yet: take one of the selected session\'s process, or open a .gcdump, .clrheap or .clrscope file.'
            : 'No snapshot yet: the selected session has no running process to take one of (launch or attach to one), or open a .gcdump, .clrheap or .clrscope file.')
          : `${shown.label}: ${formatCount(shown.objects)} objects, ${formatBytes(shown.bytes)}, ${formatCount(shown.references)} references, ${formatCount(shown.roots)} roots`
            + (shown.complete ? '' : ' (the walk did not end: the objects read)')
            + (baseline !== undefined ? `; the types that changed since ${baseline.label}` : '')}
      </div>
      <div className="heap-panes">
        <HeapTypesTable />
        <div className="heap-side">
          <HeapPaths />
          <HeapTree />
        </div>
      </div>
    </div>
  );
}
