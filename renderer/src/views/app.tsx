// The workstation's frame: the session bar, the tabs, one sentence of error when there is
// one, the visible view and the recording's status line.

import type { ReactElement } from 'react';
import type { Tab } from '../state/app-state.js';
import { CountersView } from './counters-view.js';
import { ErrorBanner } from './error-banner.js';
import { ExportView } from './export-view.js';
import { DiffView } from './diff-view.js';
import { FlameView } from './flame-view.js';
import { FunctionsView } from './functions-view.js';
import { TypesView } from './types-view.js';
import { ExceptionsView } from './exceptions-view.js';
import { SourceView } from './source-view.js';
import { TimelineView } from './timeline-view.js';
import { GcTimelineView } from './gc-timeline-view.js';
import { ThreadPoolView } from './threadpool-view.js';
import { RequestsView } from './requests-view.js';
import { HeapView } from './heap-view.js';
import { MeasureView } from './measure-view.js';
import { OutputView } from './output-view.js';
import { ParallelStacksView } from './parallel-stacks-view.js';
import { ProcessPicker } from './process-picker.js';
import { SessionBar } from './session-bar.js';
import { ShortcutsHelp, useShortcutsHelp } from './shortcuts-help.js';
import { StatusBar } from './status-bar.js';
import { TabBar } from './tab-bar.js';
import { useAppState } from './use-app-state.js';

function TabView({ tab }: { tab: Tab }): ReactElement {
  switch (tab) {
    case 'processes': return <ProcessPicker />;
    case 'flame': return <FlameView />;
    case 'functions': return <FunctionsView />;
    case 'types': return <TypesView />;
    case 'exceptions': return <ExceptionsView />;
    case 'source': return <SourceView />;
    case 'timeline': return <TimelineView />;
    case 'diff': return <DiffView />;
    case 'parallel': return <ParallelStacksView />;
    case 'counters': return <CountersView />;
    case 'gc': return <GcTimelineView />;
    case 'requests': return <RequestsView />;
    case 'threadpool': return <ThreadPoolView />;
    case 'heap': return <HeapView />;
    case 'measure': return <MeasureView />;
    case 'output': return <OutputView />;
    case 'export': return <ExportView />;
  }
}

export function App(): ReactElement {
  const tab = useAppState((s) => s.tab);
  const [help, setHelp] = useShortcutsHelp();
  return (
    <div className="app">
      <SessionBar onHelp={() => setHelp(true)} />
      <TabBar />
      <ErrorBanner />
      <main className="content" data-testid={`view-${tab}`}>
        <TabView tab={tab} />
      </main>
      <StatusBar />
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
    </div>
  );
}
