// EventPipe's .nettrace, read and written streamed (any size).

import { FILE_READ_LIMITS } from '../../profile/read-budget.js';
import { startsWithAscii, type RecordingFormat } from '../recording-format.js';
import { NETTRACE_MAGIC } from './constants.js';
import { NettraceReader } from './nettrace-reader.js';
import { nettraceChunks } from './recording-to-nettrace.js';

export const nettraceFormat = {
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
  reader: {
    kind: 'chunked',
    open: () => {
      const reader = new NettraceReader({ limits: FILE_READ_LIMITS });
      return { push: (chunk: Uint8Array) => reader.push(chunk), finish: () => ({ recording: reader.finish(), counters: [] }) };
    },
  },
  writer: (rec, context) => nettraceChunks(rec, { onProgress: context.progress }),
} as const satisfies RecordingFormat;
