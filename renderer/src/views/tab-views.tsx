// Each tab's view (the tabs themselves, their order and titles: state/tabs.ts).

import type { ReactElement } from 'react';
import type { Tab } from '../state/tabs.js';
import { CountersView } from './counters-view.js';
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

export const TAB_VIEWS: Record<Tab, () => ReactElement> = {
  processes: () => <ProcessPicker />,
  flame: () => <FlameView />,
  functions: () => <FunctionsView />,
  types: () => <TypesView />,
  exceptions: () => <ExceptionsView />,
  source: () => <SourceView />,
  timeline: () => <TimelineView />,
  diff: () => <DiffView />,
  parallel: () => <ParallelStacksView />,
  counters: () => <CountersView />,
  gc: () => <GcTimelineView />,
  requests: () => <RequestsView />,
  threadpool: () => <ThreadPoolView />,
  heap: () => <HeapView />,
  measure: () => <MeasureView />,
  output: () => <OutputView />,
  export: () => <ExportView />,
};
