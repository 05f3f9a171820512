// The thread pool's threads, queue and completed work items, one POOL_GAUGE record a second
// (PROTOCOL.md, POOL_GAUGE), from System.Runtime's counters in the profiler's session while
// `record --requests` runs: no event of the runtime says how much work waits in the queue short of
// the per-work-item ones, which a busy service cannot afford. A gauge is a moment, so its start is
// its end. The pid is appended by clrscope's merges, as REQUEST_WINDOW's: the counters' thread is
// the runtime's poller, not a thread the reader follows. Read by structs/analysis/pool-story.ts.

import { RecordType, type PoolGaugeRecord } from '../records.js';
import type { TimelineKind } from './timeline-kind.js';

export const POOL_GAUGES: TimelineKind<PoolGaugeRecord> = Object.freeze({
  name: 'POOL_GAUGE',
  recordType: RecordType.PoolGauge,
  fields: Object.freeze([
    { key: 'mono', type: 'u64' },
    { key: 'threads', type: 'u32' },
    { key: 'queueLength', type: 'u32', dumpAs: 'queue' },
    { key: 'completed', type: 'u64' },
    { key: 'pid', type: 'u32', ref: 'process', optional: true },
  ] as const),
  startField: 'mono',
  end: (g: PoolGaugeRecord) => g.mono,
  dumpName: 'pool-gauge',
});
