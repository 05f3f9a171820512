// The times the profiler listened for HTTP requests, one REQUEST_WINDOW record each (PROTOCOL.md,
// REQUEST_WINDOW): past a rate budget its DiagnosticSource bridge listens only part of each
// second, because ASP.NET Core pays for every request it is heard in, and the recording must say
// which requests it could have seen. A stream without any recorded every request.
// The pid is appended by clrscope's merges of several processes, not by the profiler: a window has
// no thread that would say whose it is, as a REQUEST's start thread does. It is read by
// structs/analysis/request-tracking.ts.

import { RecordType, type RequestWindowRecord } from '../records.js';
import type { TimelineKind } from './timeline-kind.js';

export const REQUEST_WINDOWS: TimelineKind<RequestWindowRecord> = Object.freeze({
  name: 'REQUEST_WINDOW',
  recordType: RecordType.RequestWindow,
  fields: Object.freeze([
    { key: 'startMono', type: 'u64', dumpAs: 'start' },
    { key: 'endMono', type: 'u64', dumpAs: 'end' },
    { key: 'begun', type: 'u32' },
    { key: 'cut', type: 'u32' },
    { key: 'maxPerS', type: 'u32', dumpAs: 'max-per-s' },
    { key: 'pid', type: 'u32', ref: 'process', optional: true },
  ] as const),
  startField: 'startMono',
  end: (w: RequestWindowRecord) => w.endMono,
  dumpName: 'request-window',
});
