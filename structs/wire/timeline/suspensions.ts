// Runtime suspensions (GC pauses among them): the SUSPENSION record, sent when the pause ended
// (PROTOCOL.md, SUSPENSION). The first timeline kind described by a TimelineKind.

import { RecordType, type SuspensionRecord } from '../records.js';
import type { TimelineKind } from './timeline-kind.js';

export const SUSPENSIONS: TimelineKind<SuspensionRecord> = Object.freeze({
  name: 'SUSPENSION',
  recordType: RecordType.Suspension,
  fields: Object.freeze([
    { key: 'mono', type: 'u64' },
    { key: 'durationNs', type: 'u64', dumpAs: 'duration' },
    { key: 'suspendNs', type: 'u64', dumpAs: 'suspend' },
    { key: 'reason', type: 'u8' },
    { key: 'generation', type: 'i8', dumpAs: 'gen' },
    { key: 'flags', type: 'u8' },
  ] as const),
  startField: 'mono',
  end: (s: SuspensionRecord) => s.mono + s.durationNs,
  dumpName: 'suspension',
});
