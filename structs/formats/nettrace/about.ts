// EventPipe's .nettrace, described. Its reader and writer (streamed: any size) are in format.ts.

import { startsWithAscii, type FormatDescription } from '../recording-format.js';
import { NETTRACE_MAGIC } from './constants.js';

export const nettraceAbout = {
  id: 'nettrace',
  name: 'nettrace',
  label: 'nettrace',
  read: ['.nettrace'],
  write: ['.nettrace'],
  exportRank: 4,
  help: { read: 'an EventPipe trace, e.g. from dotnet-trace', write: 'an EventPipe trace, for PerfView and TraceEvent' },
  note: 'An EventPipe trace for PerfView and TraceEvent: samples as sample-profiler events, GC pauses as the runtime\'s GC events, allocations, lock waits and exceptions as its allocation-tick, contention and exception events; no counters.',
  openHint: () => 'Open it in PerfView or with TraceEvent',
  sniff: (head: Uint8Array) => startsWithAscii(head, NETTRACE_MAGIC),
} as const satisfies FormatDescription;
