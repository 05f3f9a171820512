// The workstation's tabs, in their order: each one's title, whether it shows something without a
// selected session, and the whole-recording view it shows (structs/analysis/recording-views.ts),
// which a refresh asks the worker for while the tab is shown. A new tab is a line here and its
// view's line in views/tab-views.tsx.

import type { RecordingViewId } from '../../../structs/analysis/recording-views.js';

interface TabSpec {
  title: string;
  sessionless?: boolean;
  recordingView?: RecordingViewId;
}

export const TAB_SPECS = {
  processes: { title: 'Processes', sessionless: true },
  flame: { title: 'Flame graph' },
  functions: { title: 'Functions' },
  types: { title: 'Types' },
  exceptions: { title: 'Exceptions' },
  source: { title: 'Source' },
  timeline: { title: 'Threads' },
  diff: { title: 'Diff' },
  parallel: { title: 'Parallel stacks' },
  counters: { title: 'Counters' },
  gc: { title: 'GC pauses' },
  requests: { title: 'Requests', recordingView: 'requests' },
  threadpool: { title: 'Thread pool', recordingView: 'pool' },
  heap: { title: 'Heap', sessionless: true },
  measure: { title: 'Measure' },
  output: { title: 'Output' },
  export: { title: 'Export' },
} as const satisfies Record<string, TabSpec>;

export type Tab = keyof typeof TAB_SPECS;

export const TABS = Object.keys(TAB_SPECS) as readonly Tab[];

const spec = (tab: Tab): TabSpec => TAB_SPECS[tab];

/** Tabs that show something without a selected session. */
export const SESSIONLESS_TABS: readonly Tab[] = TABS.filter((t) => spec(t).sessionless === true);

export const tabTitle = (tab: Tab): string => spec(tab).title;

/** The whole-recording view `tab` shows; null when it shows none. */
export const tabRecordingView = (tab: Tab): RecordingViewId | null => spec(tab).recordingView ?? null;
