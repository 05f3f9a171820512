// The folding and grouping every view applies, in one row shown above the flame graph,
// parallel stacks, the functions table and the diff: [runtime] folding, my code only, group
// by assembly or namespace, and the user's fold/group patterns. Changes are saved for the
// next run.

import { useState, type FormEvent, type ReactElement } from 'react';
import type { FoldOptions, FoldPattern, GroupBy } from '../../../structs/analysis/fold-options.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function FoldBar(): ReactElement {
  const ws = useWorkstation();
  const fold = useAppState((s) => s.fold);
  const [action, setAction] = useState<FoldPattern['action']>('fold');
  const [glob, setGlob] = useState('');
  const set = (patch: Partial<FoldOptions>): void => ws.view.setFold({ ...fold, ...patch });
  const add = (e: FormEvent): void => {
    e.preventDefault();
    const text = glob.trim();
    if (text === '' || fold.patterns.some((p) => p.action === action && p.glob === text)) return;
    set({ patterns: [...fold.patterns, { action, glob: text }] });
    setGlob('');
  };
  return (
    <div className="toolbar fold-bar" data-testid="fold-bar">
      <span className="hint">Folding:</span>
      <label className="check" title="Each run of the runtime's and the C library's native frames (libcoreclr, libclrjit, libc, …) becomes one [runtime] frame">
        <input type="checkbox" checked={fold.runtime} data-testid="fold-runtime" onChange={(e) => set({ runtime: e.target.checked })} />
        [runtime]
      </label>
      <label className="check" title="Frames outside the program's own assemblies (System.*, Microsoft.*, the runtime) fold into the call that entered them">
        <input type="checkbox" checked={fold.myCode} data-testid="fold-mycode" onChange={(e) => set({ myCode: e.target.checked })} />
        my code only
      </label>
      <select value={fold.groupBy} data-testid="fold-group" aria-label="Group frames by" onChange={(e) => set({ groupBy: e.target.value as GroupBy })}>
        <option value="none">no grouping</option>
        <option value="assembly">group by assembly</option>
        <option value="namespace">group by namespace</option>
      </select>
      {fold.patterns.map((p, i) => (
        <button
          key={`${p.action}:${p.glob}`} type="button" className="chip" data-testid="fold-pattern" title="Remove this pattern"
          onClick={() => set({ patterns: fold.patterns.filter((_, j) => j !== i) })}
        >
          {p.action} {p.glob} ✕
        </button>
      ))}
      <form className="fold-add" onSubmit={add}>
        <select value={action} aria-label="Pattern action" data-testid="fold-pattern-action" onChange={(e) => setAction(e.target.value as FoldPattern['action'])}>
          <option value="fold">fold</option>
          <option value="group">group</option>
        </select>
        <input
          type="text" value={glob} placeholder="System.Linq.*" spellCheck={false} data-testid="fold-pattern-glob" aria-label="Frame name pattern"
          title="fold: matching frames go into their caller; group: a run of matching frames is one frame. * matches anything."
          onChange={(e) => setGlob(e.target.value)}
        />
        <button type="submit" data-testid="fold-pattern-add" disabled={glob.trim() === ''}>Add</button>
      </form>
    </div>
  );
}
