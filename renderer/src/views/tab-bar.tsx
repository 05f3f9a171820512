// The views of the selected recording; the views that need one are disabled until one is chosen
// (the process list and the Heap tab, which opens snapshot files too, need none).

import type { ReactElement } from 'react';
import { SESSIONLESS_TABS, TABS, tabTitle } from '../state/tabs.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function TabBar(): ReactElement {
  const ws = useWorkstation();
  const tab = useAppState((s) => s.tab);
  const hasSession = useAppState((s) => s.selectedSessionId !== null);
  return (
    <nav className="tabs" role="tablist">
      {TABS.map((t) => (
        <button
          key={t}
          type="button"
          role="tab"
          aria-selected={t === tab}
          className={t === tab ? 'tab active' : 'tab'}
          disabled={!SESSIONLESS_TABS.includes(t) && !hasSession}
          data-testid={`tab-${t}`}
          onClick={() => ws.view.setTab(t)}
        >
          {tabTitle(t)}
        </button>
      ))}
    </nav>
  );
}
