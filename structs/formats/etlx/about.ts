// PerfView's .etlx, described: only TraceEvent writes it, and nothing here reads it.

import type { FormatDescription } from '../recording-format.js';

export const etlxAbout = {
  id: 'etlx',
  name: 'PerfView etlx',
  label: 'PerfView etlx',
  read: [],
  write: ['.etlx'],
  exportRank: 5,
  help: { write: 'PerfView\'s own format (converted by TraceEvent, needs dotnet)' },
  note: 'PerfView\'s own format (converted by TraceEvent, needs dotnet): samples as sample-profiler events, GC pauses as GC events, allocations, lock waits and exceptions as the runtime\'s events; no counters.',
  openHint: () => 'Open it in PerfView',
} as const satisfies FormatDescription;
