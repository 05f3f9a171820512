// PerfView's .etlx: only TraceEvent writes it, so its writer runs a .NET converter over a
// .nettrace and lives with the host (electron/services/export/etlx.ts); nothing reads it.

import type { RecordingFormat } from '../recording-format.js';
import { etlxAbout } from './about.js';

export const etlxFormat = {
  ...etlxAbout,
  writer: 'host',
} as const satisfies RecordingFormat;
