import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import type { Recording } from '../../profile/recording.js';
import { WireEncoder } from '../../wire/encoder.js';
import { EventKind, FunctionKind, SampleFlags } from '../../wire/records.js';
import { forEachEvent, forEachStack } from './block-readers.js';
import { BlockName, Provider } from './constants.js';
import { TYPE_ID_BASE } from './event-sample-events.js';
import { CODE_BASE, CODE_STRIDE, IP_OFFSET } from './method-layout.js';
import { fromNettrace } from './nettrace-reader.js';
import { NettraceObjectReader } from './object-reader.js';
import { toNettrace } from './recording-to-nettrace.js';

const T0 = 2_000_000_000;

/**
 * Thread 7 (OS 907): a sample of Main ← Alloc (stack 1) at T0+1000 and of Main ← Wait (stack 2)
 * at T0+9000; an allocation of 2 objects / 204,800 bytes of System.Byte[] on stack 1 at T0+2000;
 * a lock wait of 3,000 ns on stack 2 ending at T0+8000; one ArgumentException with the message
 * "bad \u00e9 arg" on stack 1 at T0+8500 and three counted without a stack, thread or message at T0+8600.
 */
function eventRecording(): Recording {
  const enc = new WireEncoder().preamble().hello({
    pid: 5, flags: 3, mono: T0, unixNs: 1_760_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 1, runtimeVersion: '10.0.1', profilerVersion: 't',
  });
  enc.thread({ threadId: 7, osTid: 907, clrThreadId: 1, mono: T0, name: 'main' });
  enc.function({ functionId: 1, kind: FunctionKind.Managed, name: 'App.Program.Main', module: 'App.dll', file: '' });
  enc.function({ functionId: 2, kind: FunctionKind.Managed, name: 'App.Program.Alloc', module: 'App.dll', file: '' });
  enc.function({ functionId: 3, kind: FunctionKind.Managed, name: 'App.Program.Wait', module: 'App.dll', file: '' });
  enc.string(1, 'System.Byte[]').string(2, 'System.ArgumentException').string(3, 'bad \u00e9 arg');
  enc.sample({ mono: T0 + 1000, threadId: 7, flags: SampleFlags.Cpu | SampleFlags.Wall, cpuNs: 1, wallNs: 1, frames: [2, 1] });
  enc.event({ kind: EventKind.Allocation, mono: T0 + 2000, threadId: 7, stackId: 1, labelId: 1, value1: 204_800, value2: 2 });
  enc.sample({ mono: T0 + 2500, threadId: 7, flags: SampleFlags.Wall, cpuNs: 0, wallNs: 1, frames: [3, 1] });
  enc.event({ kind: EventKind.Contention, mono: T0 + 8000, threadId: 7, stackId: 2, labelId: 0, value1: 3000 });
  enc.event({ kind: EventKind.Exception, mono: T0 + 8500, threadId: 7, stackId: 1, labelId: 2, value1: 1, messageId: 3 });
  enc.event({ kind: EventKind.Exception, mono: T0 + 8600, threadId: 0, stackId: 0, labelId: 2, value1: 3 });
  enc.end({ mono: T0 + 10_000, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}

interface Written {
  provider: string;
  eventId: number;
  version: number;
  level: number;
  keywords: bigint;
  threadId: number;
  timestamp: number;
  /** The stack's instruction pointers, leaf first. */
  stack: number[];
  payload: Uint8Array;
}

/** Every event of the file with its metadata and stack, read with the format's block parsers. */
function readEvents(bytes: Uint8Array): Written[] {
  const meta = new Map<number, Omit<Written, 'threadId' | 'timestamp' | 'stack' | 'payload'>>();
  let stacks = new Map<number, number[]>();
  const out: Written[] = [];
  const reader = new NettraceObjectReader({
    onTrace: () => undefined,
    onBlock: (name, contents, offset) => {
      if (name === BlockName.Metadata) {
        forEachEvent(contents, offset, 'metadata', (_h, r) => {
          const id = r.i32();
          const provider = r.utf16z();
          const eventId = r.i32();
          r.utf16z();
          const lo = BigInt(r.u32());
          const keywords = (BigInt(r.u32()) << 32n) | lo;
          meta.set(id, { provider, eventId, keywords, version: r.i32(), level: r.i32() });
        });
      } else if (name === BlockName.Stack) {
        forEachStack(contents, offset, (id, r, size) => {
          stacks.set(id, Array.from({ length: size / 8 }, () => r.u64()));
        });
      } else if (name === BlockName.Event) {
        forEachEvent(contents, offset, 'events', (h, r, end) => {
          const m = meta.get(h.metadataId);
          assert.ok(m !== undefined);
          out.push({ ...m, threadId: h.threadId, timestamp: h.timestamp, stack: h.stackId === 0 ? [] : stacks.get(h.stackId) ?? [-1], payload: r.bytes.slice(r.pos, end) });
        });
      } else if (name === BlockName.SequencePoint) {
        stacks = new Map();
      }
    },
  });
  reader.push(bytes);
  return out;
}

const ip = (functionIndex: number): number => CODE_BASE + functionIndex * CODE_STRIDE + IP_OFFSET;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

const utf16z = (s: string): string => Buffer.from(`${s}\0`, 'utf16le').toString('hex');
const u16 = (v: number): string => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b.toString('hex'); };
const u32 = (v: number): string => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b.toString('hex'); };
const u64 = (v: number): string => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b.toString('hex'); };
const f64 = (v: number): string => { const b = Buffer.alloc(8); b.writeDoubleLE(v); return b.toString('hex'); };

test('event samples become the runtime\'s events, in time order, with their stacks and payloads field by field', () => {
  const rec = eventRecording();
  const runtime = readEvents(toNettrace(rec)).filter((e) => e.provider === Provider.Runtime && [10, 80, 81, 91].includes(e.eventId));
  // Functions are laid out in definition order from index 1: Main 1, Alloc 2, Wait 3.
  const allocStack = [ip(2), ip(1)];
  const waitStack = [ip(3), ip(1)];
  assert.deepEqual(runtime.map((e) => [e.eventId, e.version, e.level, e.keywords, e.threadId, e.timestamp - T0, e.stack]), [
    [10, 4, 5, 0x1n, 907, 2000, allocStack],
    [81, 2, 4, 0x4000n, 907, 5000, waitStack],
    [91, 1, 4, 0x4000n, 907, 8000, waitStack],
    [80, 1, 2, 0x200008000n, 907, 8500, allocStack],
    // Counted without a thread: on the first thread, as the runtime-wide events are.
    [80, 1, 2, 0x200008000n, 907, 8600, []],
    [80, 1, 2, 0x200008000n, 907, 8600, []],
    [80, 1, 2, 0x200008000n, 907, 8600, []],
  ]);
  // GCAllocationTick v4: amount (u32, u64), kind 1 = large (102,400-byte objects), the type, heap 0, no address, the object's size.
  assert.equal(hex(runtime[0].payload), u32(204_800) + u32(1) + u16(0) + u64(204_800) + u64(TYPE_ID_BASE + 0x10) + utf16z('System.Byte[]') + u32(0) + u64(0) + u64(102_400));
  // ContentionStart v2: managed, ClrInstanceID 0, no lock, object or owner recorded.
  assert.equal(hex(runtime[1].payload), '00' + u16(0) + u64(0) + u64(0) + u64(0));
  // ContentionStop v1: managed, ClrInstanceID 0, DurationNs.
  assert.equal(hex(runtime[2].payload), '00' + u16(0) + f64(3000));
  // ExceptionThrown v1: type, message, the leaf's address, HRESULT 0, flags CLS-compliant, ClrInstanceID 0.
  assert.equal(hex(runtime[3].payload), utf16z('System.ArgumentException') + utf16z('bad \u00e9 arg') + u64(ip(2)) + u32(0) + u16(0x10) + u16(0));
  assert.equal(hex(runtime[4].payload), utf16z('System.ArgumentException') + utf16z('') + u64(0) + u32(0) + u16(0x10) + u16(0));
});

test('a recording without event samples writes no runtime event-sample events', () => {
  const enc = new WireEncoder().preamble().hello({ pid: 1, flags: 3, mono: T0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' });
  enc.thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: T0, name: '' });
  enc.function({ functionId: 1, kind: FunctionKind.Managed, name: 'A.B', module: 'A.dll', file: '' });
  enc.sample({ mono: T0 + 1, threadId: 1, flags: SampleFlags.Cpu, cpuNs: 1, wallNs: 1, frames: [1] });
  enc.end({ mono: T0 + 2, reason: 0 });
  const events = readEvents(toNettrace(recordingFromStream([enc.bytes()])));
  assert.deepEqual(events.filter((e) => [10, 80, 81, 91].includes(e.eventId) && e.provider === Provider.Runtime), []);
});

test('a lock wait that began before the recording\'s first event still goes out in time order', () => {
  const enc = new WireEncoder().preamble().hello({ pid: 1, flags: 3, mono: T0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' });
  enc.thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: T0, name: '' });
  enc.function({ functionId: 1, kind: FunctionKind.Managed, name: 'A.B', module: 'A.dll', file: '' });
  enc.sample({ mono: T0 + 10, threadId: 1, flags: SampleFlags.Cpu, cpuNs: 1, wallNs: 1, frames: [1] });
  enc.event({ kind: EventKind.Contention, mono: T0 + 20, threadId: 1, stackId: 1, labelId: 0, value1: 5_000_000 });
  enc.end({ mono: T0 + 30, reason: 0 });
  const events = readEvents(toNettrace(recordingFromStream([enc.bytes()])));
  for (let i = 1; i < events.length; i++) assert.ok(events[i].timestamp >= events[i - 1].timestamp, `event ${i} goes back in time`);
  const start = events.find((e) => e.eventId === 81 && e.provider === Provider.Runtime);
  assert.equal(start?.timestamp, T0 + 20 - 5_000_000);
});

test('reading the file back restores the event samples: kinds, threads, stacks, types, values and messages', () => {
  const rec = eventRecording();
  const back = fromNettrace(toNettrace(rec));
  const dump = (r: Recording): string[] => {
    const e = r.events();
    const out: string[] = [];
    for (let i = 0; i < e.kind.length; i++) {
      const stack = e.stackId[i] < 0 ? '-' : Array.from(r.stackFrames(e.stackId[i]), (id) => r.functionInfo(id)?.name ?? '?').join(';');
      const tid = e.threadId[i] === 0 ? 0 : r.threads().find((t) => t.id === e.threadId[i])?.osTid;
      const message = e.messageId[i] === 0 ? '' : ` "${r.strings().get(e.messageId[i]) ?? '?'}"`;
      out.push(`${e.kind[i]} ${e.mono[i] - T0} ${tid} ${stack} ${r.strings().get(e.labelId[i]) ?? ''} ${e.value1[i]} ${e.value2[i]}${message}`);
    }
    return out.sort();
  };
  assert.deepEqual(dump(back), [
    // Allocation: 204,800 bytes as 2 objects of 102,400.
    `${EventKind.Allocation} 2000 907 App.Program.Alloc;App.Program.Main System.Byte[] 204800 2`,
    `${EventKind.Contention} 8000 907 App.Program.Wait;App.Program.Main  3000 0`,
    `${EventKind.Exception} 8500 907 App.Program.Alloc;App.Program.Main System.ArgumentException 1 0 "bad \u00e9 arg"`,
    // The three counted without a stack come back one by one, on the thread they were written on.
    `${EventKind.Exception} 8600 907 - System.ArgumentException 1 0`,
    `${EventKind.Exception} 8600 907 - System.ArgumentException 1 0`,
    `${EventKind.Exception} 8600 907 - System.ArgumentException 1 0`,
  ]);
  assert.equal(rec.eventCount, 4);
});
