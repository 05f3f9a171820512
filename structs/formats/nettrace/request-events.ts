// The recording's HTTP requests (REQUEST records, `record --requests`) as the events ASP.NET
// Core's own HostingEventSource raises for them, so PerfView's "Thread Time (with StartStop
// Activities)" and TraceEvent's StartStopActivityComputer see each request as an activity:
//
// - RequestStart (3, opcode Start) at the request's start, on the thread that began it, payload
//   method and path. The path is the route pattern (`/cpu/{ms}`): the recording keeps the
//   endpoint, not the URL the client asked for.
// - RequestStop (4, opcode Stop, no payload) at its end on the thread that ended it; a request
//   still in flight when the recording ended gets its start only.
//
// The pair shares an ActivityId in the event header, built as EventSource's ActivityTracker builds
// a root activity's (an "activity path" Guid: the appdomain, 1 in .NET Core, then a number unique
// per activity, checksummed with the pid), because TraceEvent pairs an EventSource's start and stop
// by that id and only when it has this shape. Status, trace id and span id have no field in the
// real events and are not written.

import type { Recording } from '../../profile/recording.js';
import type { RequestRecord } from '../../wire/records.js';
import { REQUESTS } from '../../wire/timeline/requests.js';
import { ByteWriter } from './byte-writer.js';
import { HostingRequestStartEvent, HostingRequestStopEvent } from './event-definitions.js';
import type { NettraceFileWriter } from './nettrace-file-writer.js';

/** EventSource's appdomain number in .NET Core, the first number of every root activity path. */
const APPDOMAIN_ID = 1;
/** The constant EventSource adds to an activity path's checksum (ActivityTracker). */
const ACTIVITY_PATH_CHECKSUM = 0x599d99ad;
/** Bytes of the Guid an activity path may fill; the last 4 hold the checksum. */
const PATH_BYTES = 12;

/**
 * The activity-path Guid (16 bytes in .NET's Guid memory layout) of the path `ids` in process
 * `pid`: numbers 1–10 take a nibble, larger ones a length nibble (0xC + bytes − 1) and their bytes
 * little-endian, a zero nibble ends the path; TraceEvent shows it as `/#pid/1/n/`.
 */
export function activityPathGuid(ids: readonly number[], pid: number): Uint8Array {
  const g = new Uint8Array(16);
  let at = 0;
  let low = false; // the next nibble goes in the low half of g[at]
  const nibble = (v: number): void => {
    if (low) g[at++] |= v;
    else g[at] = v << 4;
    low = !low;
  };
  for (const id of ids) {
    if (id >= 1 && id <= 10) {
      nibble(id);
      continue;
    }
    const len = id <= 0xff ? 1 : id <= 0xffff ? 2 : id <= 0xffffff ? 3 : 4;
    if (!low && id < 4096) {
      // A length nibble in a byte's high half leaves the low half free for the id's high bits.
      g[at++] = 0xc0 | (id >>> 8);
      g[at++] = id & 0xff;
    } else {
      nibble(0xc + len - 1);
      if (low) {
        at++;
        low = false;
      }
      for (let k = 0; k < len; k++) g[at++] = (id >>> (8 * k)) & 0xff;
    }
    if (at > PATH_BYTES) throw new RangeError(`The activity path ${ids.join('/')} does not fit in a Guid.`);
  }
  const v = new DataView(g.buffer);
  const sum = (v.getUint32(0, true) + v.getUint32(4, true) + v.getUint32(8, true) + ACTIVITY_PATH_CHECKSUM) >>> 0;
  v.setUint32(12, (sum ^ pid) >>> 0, true);
  return g;
}

/** RequestStart's payload: method and path, null-terminated UTF-16. */
export function requestStartPayload(method: string, path: string): Uint8Array {
  return new ByteWriter(4 + 2 * (method.length + path.length)).utf16z(method).utf16z(path).take();
}

const EMPTY = new Uint8Array(0);

export interface RequestEventTarget {
  writer: NettraceFileWriter;
  /** The thread runtime-wide events go on, for a request whose thread was not recorded (0). */
  fallbackTid: number;
}

/** The recording's requests as start and stop events in time order, written one at a time. */
export class RequestEvents {
  private readonly requests: readonly RequestRecord[];
  private readonly strings: ReadonlyMap<number, string>;
  private readonly pid: number;
  /** Start and stop times in time order; entry = request index × 2, + 1 for a stop. */
  private readonly times: Float64Array;
  private readonly entries: Uint32Array;
  private next = 0;

  constructor(rec: Recording) {
    // The records themselves, not requestsOf's "METHOD route" endpoint: the two fields are apart.
    this.requests = rec.timeline(REQUESTS);
    this.strings = rec.strings();
    this.pid = rec.meta?.pid ?? 0;
    const times: number[] = [];
    const entries: number[] = [];
    this.requests.forEach((r, i) => {
      times.push(r.mono);
      entries.push(i * 2);
      if (r.endMono !== 0) {
        times.push(Math.max(r.mono, r.endMono));
        entries.push(i * 2 + 1);
      }
    });
    // A request's start before its stop at the same moment, otherwise the recording's order.
    const order = entries.map((_, k) => k).sort((a, b) => times[a] - times[b] || entries[a] - entries[b]);
    this.times = Float64Array.from(order, (k) => times[k]);
    this.entries = Uint32Array.from(order, (k) => entries[k]);
  }

  get firstTime(): number {
    return this.times.length > 0 ? this.times[0] : Number.POSITIVE_INFINITY;
  }

  get nextTime(): number {
    return this.next < this.times.length ? this.times[this.next] : Number.POSITIVE_INFINITY;
  }

  writeNext(to: RequestEventTarget): void {
    const ts = this.times[this.next];
    const entry = this.entries[this.next++];
    const index = entry >>> 1;
    const r = this.requests[index];
    // One number per request, as ActivityTracker numbers each activity it starts.
    const activityId = activityPathGuid([APPDOMAIN_ID, index + 1], this.pid);
    if ((entry & 1) === 0) {
      const text = (id: number): string => (id === 0 ? '' : this.strings.get(id) ?? '');
      to.writer.writeEvent(HostingRequestStartEvent, r.startTid || to.fallbackTid, 0, ts, requestStartPayload(text(r.method), text(r.endpoint)), activityId);
    } else {
      to.writer.writeEvent(HostingRequestStopEvent, r.endTid || r.startTid || to.fallbackTid, 0, ts, EMPTY, activityId);
    }
  }
}
