// The workstation's frame: the session bar, the tabs, one sentence of error when there is
// one, the visible view and the recording's status line.

import type { ReactElement } from 'react';
import { ErrorBanner } from './error-banner.js';
import { SessionBar } from './session-bar.js';
import { ShortcutsHelp, useShortcutsHelp } from './shortcuts-help.js';
import { StatusBar } from './status-bar.js';
import { TabBar } from './tab-bar.js';
import { TAB_VIEWS } from './tab-views.js';
import { useAppState } from './use-app-state.js';

export function App(): ReactElement {
  const tab = useAppState((s) => s.tab);
  const [help, setHelp] = useShortcutsHelp();
  return (
    <div className="app">
      <SessionBar onHelp={() => setHelp(true)} />
      <TabBar />
      <ErrorBanner />
      <main className="content" data-testid={`view-${tab}`}>
        {TAB_VIEWS[tab]()}
      </main>
      <StatusBar />
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
    </div>
  );
}
