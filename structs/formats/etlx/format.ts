// PerfView's .etlx: only TraceEvent writes it, so its writer runs a .NET converter over a
// .nettrace and lives with the host (electron/services/export/etlx.ts); nothing reads it.

import type { RecordingFormat } from '../recording-format.js';

export const etlxFormat = {
  id: 'etlx',
  name: 'PerfView etlx',
  label: 'PerfView etlx',
  read: [],
  write: ['.etlx'],
  exportRank: 5,
  help: { write: 'PerfView\'s own format (converted by TraceEvent, needs dotnet)' },
  note: 'PerfView\'s own format (converted by TraceEvent, needs dotnet): samples as sample-profiler events, GC pauses as GC events, allocations, lock waits and exceptions as the runtime\'s events; no counters.',
  openHint: () => 'Open it in PerfView',
  writer: 'host',
} as const satisfies RecordingFormat;
