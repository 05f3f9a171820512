// PerfView's .etlx, described: only TraceEvent writes it, and nothing here reads it. A .etlx
// opens only in the TraceEvent whose TraceLog format wrote it (TraceLog's serialization version,
// checked both ways): the converter's TraceEvent 4.0 writes format 78, which TraceEvent and
// PerfView 3.2.6 and later read and 3.2.5 and older refuse (test/integration/etlx-versions.test.ts).

import type { FormatDescription } from '../recording-format.js';

export const etlxAbout = {
  id: 'etlx',
  name: 'PerfView etlx',
  label: 'PerfView etlx',
  read: [],
  write: ['.etlx'],
  exportRank: 5,
  help: { write: 'PerfView\'s own format (converted by TraceEvent, needs dotnet); opens in PerfView 3.2.6 or later' },
  note: 'PerfView\'s own format (converted by TraceEvent, needs dotnet): samples as sample-profiler events, GC pauses as GC events, allocations, lock waits and exceptions as the runtime\'s events; no counters. TraceLog format 78: opens in PerfView and TraceEvent 3.2.6 or later (4.0 included), not in 3.2.5 or older, which should open the .nettrace export instead.',
  openHint: () => 'Open it in PerfView 3.2.6 or later',
} as const satisfies FormatDescription;
