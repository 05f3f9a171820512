// HTTP requests an ASP.NET Core program served, one REQUEST record each (PROTOCOL.md, REQUEST),
// sent when the request ended (or at the stream's end, still in flight, with endMono 0). Its seq
// came later than the other fields (older writers' bodies end before it), so it is optional. The
// requests' table and the samples they hold are read by structs/analysis/requests.ts.

import { RecordType, type RequestRecord } from '../records.js';
import type { TimelineKind } from './timeline-kind.js';

export const REQUESTS: TimelineKind<RequestRecord> = Object.freeze({
  name: 'REQUEST',
  recordType: RecordType.Request,
  fields: Object.freeze([
    { key: 'mono', type: 'u64' },
    { key: 'endMono', type: 'u64', dumpAs: 'end' },
    { key: 'startTid', type: 'u32', dumpAs: 'tid' },
    { key: 'endTid', type: 'u32', dumpAs: 'end-tid' },
    { key: 'status', type: 'u32' },
    { key: 'method', type: 'u32', ref: 'string' },
    { key: 'endpoint', type: 'u32', ref: 'string' },
    { key: 'traceId', type: 'u32', ref: 'string', dumpAs: 'trace' },
    { key: 'spanId', type: 'u32', ref: 'string', dumpAs: 'span' },
    { key: 'seq', type: 'u32', ref: 'request', optional: true },
  ] as const),
  startField: 'mono',
  end: (r: RequestRecord) => (r.endMono === 0 ? r.mono : r.endMono),
  dumpName: 'request',
});
