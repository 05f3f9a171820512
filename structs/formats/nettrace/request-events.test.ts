import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { WireEncoder } from '../../wire/encoder.js';
import { SampleFlags } from '../../wire/records.js';
import { REQUESTS } from '../../wire/timeline/requests.js';
import { forEachEvent, readMetadataRecord } from './block-readers.js';
import { BlockName, METADATA_TAG_OPCODE, Opcode, Provider } from './constants.js';
import { NettraceObjectReader } from './object-reader.js';
import { fromNettrace } from './nettrace-reader.js';
import { toNettrace } from './recording-to-nettrace.js';
import { activityPathGuid } from './request-events.js';
import { SpanReader } from './span-reader.js';

/** TraceEvent's reading of an activity-path Guid (StartStopActivityComputer.ActivityPathString), for the test's side. */
function pathOf(g: Uint8Array): string {
  let out = '';
  for (let at = 0; at < 12;) {
    let nib = g[at] >> 4;
    let second = false;
    for (;;) {
      if (nib === 0) return `${out}/`;
      if (nib <= 10) {
        out += `/${nib}`;
        if (second) {
          at++;
          break;
        }
        nib = g[at] & 0xf;
        second = true;
        continue;
      }
      const bytes = nib - 0xc + 1;
      let value = second ? 0 : g[at] & 0xf;
      at++;
      for (let k = bytes - 1; k >= 0; k--) value = value * 256 + g[at + k];
      out += `/${value}`;
      at += bytes;
      break;
    }
  }
  return `${out}/`;
}

function checksumHolds(g: Uint8Array, pid: number): boolean {
  const v = new DataView(g.buffer, g.byteOffset, 16);
  return (((v.getUint32(0, true) + v.getUint32(4, true) + v.getUint32(8, true) + 0x599d99ad) >>> 0) ^ pid) >>> 0 === v.getUint32(12, true);
}

test('activity paths encode as EventSource encodes them, and TraceEvent\'s reading gives them back', () => {
  for (const ids of [[1, 5], [1, 10], [1, 11], [1, 300], [1, 4095], [1, 70_000], [1, 20_000_000], [11, 5000], [300, 2], [1, 2, 3, 4]]) {
    const g = activityPathGuid(ids, 4321);
    assert.equal(pathOf(g), `/${ids.join('/')}/`, ids.join('/'));
    assert.ok(checksumHolds(g, 4321), `checksum of ${ids.join('/')}`);
  }
  assert.deepEqual([...activityPathGuid([1, 5], 0).subarray(0, 12)], [0x15, ...new Array<number>(11).fill(0)]);
  assert.throws(() => activityPathGuid([1, 2 ** 31, 2 ** 31, 2 ** 31], 1), /does not fit/);
});

interface HostingEvent { eventId: number; tid: number; ts: number; activity: string; method?: string; path?: string }

/** The file's Microsoft.AspNetCore.Hosting metadata (name → opcode) and events, and the activity ids of every other event. */
function hostingEventsOf(bytes: Uint8Array): { opcodes: Map<string, number>; fields: Map<string, string[]>; events: HostingEvent[]; otherActivities: Set<string> } {
  const hosting = new Map<number, string>();
  const opcodes = new Map<string, number>();
  const fields = new Map<string, string[]>();
  const events: HostingEvent[] = [];
  const otherActivities = new Set<string>();
  const reader = new NettraceObjectReader({
    onTrace: () => undefined,
    onBlock: (name, contents, offset) => {
      if (name === BlockName.Metadata) {
        forEachEvent(contents, offset, name, (_h, r, end) => {
          const m = readMetadataRecord(r);
          if (m.provider !== Provider.Hosting) return;
          hosting.set(m.metadataId, m.eventName);
          const names: string[] = [];
          for (let n = r.i32(); n > 0; n--) {
            r.i32();
            names.push(r.utf16z());
          }
          fields.set(m.eventName, names);
          if (r.pos < end) {
            assert.equal(r.i32(), 1, 'tag length');
            assert.equal(r.u8(), METADATA_TAG_OPCODE);
            opcodes.set(m.eventName, r.u8());
          }
        });
      } else if (name === BlockName.Event) {
        forEachEvent(contents, offset, name, (h, r) => {
          const activity = Buffer.from(h.activityId).toString('hex');
          const eventName = hosting.get(h.metadataId);
          if (eventName === undefined) {
            otherActivities.add(activity);
            return;
          }
          const e: HostingEvent = { eventId: eventName === 'RequestStart' ? 3 : 4, tid: h.threadId, ts: h.timestamp, activity };
          if (h.payloadSize > 0) {
            const p = new SpanReader(r.bytes, r.base, 'payload', r.pos, r.pos + h.payloadSize);
            e.method = p.utf16z();
            e.path = p.utf16z();
          }
          events.push(e);
        });
      }
    },
  });
  reader.push(bytes);
  return { opcodes, fields, events, otherActivities };
}

const T = 2_000_000_000;

/** Two requests that ended (one begun and ended on different threads) and one still in flight, with samples around them. */
function webRecording(): Uint8Array {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 4321, flags: 1, mono: T, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: 'test' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: T, name: 'pool' })
    .thread({ threadId: 2, osTid: 12, clrThreadId: 2, mono: T, name: 'pool' })
    .function({ functionId: 1, kind: 0, name: 'Web.Handler', module: 'Web.dll', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1])
    .string(1, 'GET').string(2, '/cpu/{ms}').string(3, 'POST').string(4, '/orders');
  for (let i = 1; i <= 6; i++) enc.stackSample(T + 100 * i, 1 + (i % 2), SampleFlags.Cpu, 10, 0, 1, 0, 0, 0);
  enc.timeline(REQUESTS, { mono: T + 150, endMono: T + 420, startTid: 11, endTid: 12, status: 200, method: 1, endpoint: 2, traceId: 0, spanId: 0, seq: 1 });
  enc.timeline(REQUESTS, { mono: T + 250, endMono: T + 250 + 77, startTid: 12, endTid: 12, status: 500, method: 3, endpoint: 4, traceId: 0, spanId: 0, seq: 2 });
  enc.timeline(REQUESTS, { mono: T + 550, endMono: 0, startTid: 11, endTid: 0, status: 0, method: 1, endpoint: 2, traceId: 0, spanId: 0, seq: 3 });
  return enc.end({ mono: T + 700, reason: 0 }).bytes().slice();
}

test('each request becomes ASP.NET Core\'s RequestStart/RequestStop pair, sharing an activity path, on its threads at its times', () => {
  const bytes = toNettrace(recordingFromStream([webRecording()]));
  const { opcodes, fields, events, otherActivities } = hostingEventsOf(bytes);
  assert.deepEqual([...opcodes], [['RequestStart', Opcode.Start], ['RequestStop', Opcode.Stop]]);
  assert.deepEqual([...fields], [['RequestStart', ['method', 'path']], ['RequestStop', []]]);
  const id = (n: number): string => Buffer.from(activityPathGuid([1, n], 4321)).toString('hex');
  assert.deepEqual(events, [
    { eventId: 3, tid: 11, ts: T + 150, activity: id(1), method: 'GET', path: '/cpu/{ms}' },
    { eventId: 3, tid: 12, ts: T + 250, activity: id(2), method: 'POST', path: '/orders' },
    { eventId: 4, tid: 12, ts: T + 327, activity: id(2) },
    { eventId: 4, tid: 12, ts: T + 420, activity: id(1) },
    // Still in flight at the end: its start only.
    { eventId: 3, tid: 11, ts: T + 550, activity: id(3), method: 'GET', path: '/cpu/{ms}' },
  ]);
  // Samples, rundown and clrscope's own events between and after them carry no activity.
  assert.deepEqual([...otherActivities], ['0'.repeat(32)]);
});

test('a recording with requests still reads back with its samples', () => {
  const rec = recordingFromStream([webRecording()]);
  const back = fromNettrace(toNettrace(rec));
  assert.equal(back.sampleColumns().mono.length, rec.sampleColumns().mono.length);
  assert.deepEqual([...back.sampleColumns().mono], [...rec.sampleColumns().mono]);
});
