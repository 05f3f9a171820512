// The reader on a live session's stream (the EventPipe fallback of `record --pid`): counters
// delivered while blocks arrive, samples valued by the gaps between a thread's samples, the
// sample profiler's own suspensions dropped, HELLO marked, and a stream that breaks off kept.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HelloFlags, SampleFlags } from '../../wire/records.js';
import { ByteWriter } from './byte-writer.js';
import { BlockName, EtwSuspendReason, Provider, RuntimeEvent } from './constants.js';
import type { EventCounterValue } from './event-counters.js';
import { EventBlockBuilder } from './event-block-builder.js';
import { NettraceFormatError } from './nettrace-format-error.js';
import { NettraceReader, type NettraceReaderOptions } from './nettrace-reader.js';
import { ChunkedOutput, writeBlock, writeEndOfStream, writeStreamHeader, writeTraceObject } from './object-writer.js';
import { gcNoUserDataPayload, gcStartPayload, gcSuspendEEBeginPayload, methodVerbosePayload, threadSamplePayload } from './runtime-payloads.js';

const f64 = (v: number): Uint8Array => { const b = new Uint8Array(8); new DataView(b.buffer).setFloat64(0, v, true); return b; };
const f32 = (v: number): Uint8Array => { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); return b; };

function metadata(id: number, provider: string, eventId: number, name: string, version: number, level: number, fields?: Uint8Array): Uint8Array {
  const w = new ByteWriter().i32(id).utf16z(provider).i32(eventId).utf16z(name).u64(0).i32(version).i32(level);
  return fields === undefined ? w.i32(0).take() : w.append(fields).take();
}

/** System.Runtime's incrementing-counter layout (one unnamed object holding "Payload"). */
function sumLayout(): Uint8Array {
  const fields: [number, string][] = [[18, 'Name'], [18, 'DisplayName'], [18, 'DisplayRateTimeScale'], [14, 'Increment'], [13, 'IntervalSec'],
    [18, 'Metadata'], [18, 'Series'], [18, 'CounterType'], [18, 'DisplayUnits']];
  const w = new ByteWriter().i32(1).i32(1).i32(1).i32(1).i32(fields.length);
  for (const [tc, name] of fields) w.i32(tc).utf16z(name);
  return w.utf16z('Payload').utf16z('').take();
}

function counter(name: string, increment: number): Uint8Array {
  return new ByteWriter().utf16z(name).utf16z(name).utf16z('00:00:01').append(f64(increment)).append(f32(1))
    .utf16z('').utf16z('Interval=1000').utf16z('Sum').utf16z('').take();
}

const H = { sequenceNumber: 0, captureThreadId: 0, captureProcNumber: 0xffffffff, sorted: true };
const MS = 1_000_000;

/** A session's stream: QPC in ns, one method, samples of threads 7 and 8, two suspensions, two counters. Returns the chunks, block by block. */
function sessionStream(): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  const out = new ChunkedOutput();
  const flush = (): void => { const c = out.takeChunk(true); if (c !== undefined) chunks.push(c); };
  writeStreamHeader(out);
  writeTraceObject(out, { syncTimeUnixMs: Date.UTC(2026, 0, 1), syncTimeQpc: 1000 * MS, qpcFrequency: 1e9, pointerSize: 8, processId: 4242, numberOfProcessors: 2, expectedCpuSamplingRate: MS });
  const meta = new EventBlockBuilder();
  const defs = [
    metadata(1, Provider.SampleProfiler, 0, '', 0, 4),
    metadata(2, Provider.Runtime, RuntimeEvent.MethodLoadVerbose, '', 1, 5),
    metadata(3, Provider.Runtime, RuntimeEvent.GCSuspendEEBegin, '', 1, 4),
    metadata(4, Provider.Runtime, RuntimeEvent.GCStart, '', 2, 4),
    metadata(5, Provider.Runtime, RuntimeEvent.GCRestartEEEnd, '', 1, 4),
    metadata(6, 'System.Runtime', 157, 'EventCounters', 0, 0, sumLayout()),
  ];
  for (const d of defs) meta.tryAdd({ ...H, metadataId: 0, threadId: 7, stackId: 0, timestamp: 1000 * MS }, d);
  writeBlock(out, BlockName.Metadata, meta.contentLength, (w) => meta.writeContent(w));
  const stacks = new ByteWriter().u32(1).u32(1).u32(8).u64(0x40001010);
  writeBlock(out, BlockName.Stack, stacks.length, (w) => w.append(stacks.bytes()));
  const events = new EventBlockBuilder();
  const add = (metadataId: number, threadId: number, stackId: number, ms: number, payload: Uint8Array): void => {
    assert.ok(events.tryAdd({ ...H, metadataId, threadId, stackId, timestamp: 1000 * MS + ms * MS }, payload));
  };
  add(2, 7, 0, 0, methodVerbosePayload({ methodId: 1, moduleId: 0, startAddress: 0x40001000, size: 0x100, token: 0, flags: 8, namespace: 'App.Worker', name: 'Hot', signature: '' }));
  // Thread 7 in managed code at 1, 5, 9 and 50 ms (a 41 ms hole: not the sampler's rhythm); thread 8 blocked at 1 and 5.
  add(1, 7, 1, 1, threadSamplePayload(2));
  add(1, 8, 1, 1, threadSamplePayload(1));
  // The sampler's own suspension (reason other, no GC) and a gen-1 GC.
  add(3, 9, 0, 2, gcSuspendEEBeginPayload(EtwSuspendReason.Other, 0));
  add(5, 9, 0, 2.1, gcNoUserDataPayload());
  add(3, 9, 0, 3, gcSuspendEEBeginPayload(EtwSuspendReason.GC, 1));
  add(4, 9, 0, 3.2, gcStartPayload(1, 1, 0, 0));
  add(5, 9, 0, 4, gcNoUserDataPayload());
  add(1, 7, 1, 5, threadSamplePayload(2));
  add(1, 8, 1, 5, threadSamplePayload(1));
  add(6, 10, 0, 6, counter('gen-0-gc-count', 12));
  add(1, 7, 1, 9, threadSamplePayload(2));
  add(1, 7, 1, 50, threadSamplePayload(2));
  writeBlock(out, BlockName.Event, events.contentLength, (w) => events.writeContent(w));
  flush();
  const more = new EventBlockBuilder();
  assert.ok(more.tryAdd({ ...H, metadataId: 6, threadId: 10, stackId: 0, timestamp: 1051 * MS }, counter('gen-0-gc-count', 3)));
  writeBlock(out, BlockName.Event, more.contentLength, (w) => more.writeContent(w));
  flush();
  writeEndOfStream(out);
  flush();
  return chunks;
}

const LIVE: NettraceReaderOptions = {
  sampleValues: 'gaps', profilerVersion: 'live', addFlags: HelloFlags.Attached | HelloFlags.ApproximateCpu, dropSamplerSuspensions: true,
};

test('EventCounters values come as their blocks arrive, before the stream ends', () => {
  const seen: EventCounterValue[] = [];
  const reader = new NettraceReader({ onEventCounter: (c) => seen.push(c) });
  const [first, second, end] = sessionStream();
  reader.push(first);
  assert.deepEqual(seen.map((c) => [c.provider, c.name, c.kind, c.value, c.intervalSec, c.timestamp]), [['System.Runtime', 'gen-0-gc-count', 'sum', 12, 1, 1006 * MS]]);
  reader.push(second);
  assert.deepEqual(seen.map((c) => c.value), [12, 3]);
  reader.push(end);
  assert.equal(reader.finish().sampleCount, 6);
});

test('a live session: samples worth the time since their thread\'s previous one, HELLO marked, the sampler\'s suspensions dropped', () => {
  const reader = new NettraceReader(LIVE);
  for (const c of sessionStream()) reader.push(c);
  const rec = reader.finish();
  // Gaps: thread 7 has 4, 4, 41 ms; thread 8 has 4 ms; the median gap is 4 ms.
  assert.equal(rec.meta?.intervalNs, 4 * MS);
  assert.equal(rec.meta?.flags, HelloFlags.Cpu | HelloFlags.Wall | HelloFlags.Attached | HelloFlags.ApproximateCpu);
  assert.equal(rec.meta?.approximateCpu, true);
  assert.equal(rec.meta?.profilerVersion, 'live');
  const byMono = Array.from({ length: rec.sampleCount }, (_, i) => [rec.sampleMono(i) / MS - 1000, rec.thread(rec.sampleThreadId(i))?.osTid, rec.sampleWallNs(i) / MS, rec.sampleCpuNs(i) / MS, rec.sampleFlags(i)]);
  assert.deepEqual(byMono, [
    // First samples of a thread, and the one after the 41 ms hole, count one typical gap.
    [1, 7, 4, 4, SampleFlags.Cpu | SampleFlags.Wall],
    [1, 8, 4, 0, SampleFlags.Wall],
    [5, 7, 4, 4, SampleFlags.Cpu | SampleFlags.Wall],
    [5, 8, 4, 0, SampleFlags.Wall],
    [9, 7, 4, 4, SampleFlags.Cpu | SampleFlags.Wall],
    [50, 7, 4, 4, SampleFlags.Cpu | SampleFlags.Wall],
  ]);
  assert.deepEqual(rec.suspensions(), [{ mono: 1003 * MS, durationNs: 1 * MS, suspendNs: 1 * MS, reason: 1, generation: 1, flags: 0 }]);
  assert.equal(rec.cut, false);
});

test('without the options the same stream reads as another tool\'s file: PerfView\'s thread time, the sampler\'s suspensions dropped', () => {
  const reader = new NettraceReader();
  for (const c of sessionStream()) reader.push(c);
  const rec = reader.finish();
  // Each sample is worth the time to its thread's next one; a thread's last sample one typical
  // gap (4 ms), cut at the stream's last event (1051 ms): thread 7's at 50 ms is worth 1 ms.
  assert.equal(rec.meta?.intervalNs, 4 * MS);
  assert.equal(rec.meta?.approximateCpu, true);
  const byMono = Array.from({ length: rec.sampleCount }, (_, i) => [rec.sampleMono(i) / MS - 1000, rec.thread(rec.sampleThreadId(i))?.osTid, rec.sampleWallNs(i) / MS, rec.sampleCpuNs(i) / MS]);
  assert.deepEqual(byMono, [[1, 7, 4, 4], [1, 8, 4, 0], [5, 7, 4, 4], [5, 8, 4, 0], [9, 7, 41, 41], [50, 7, 1, 1]]);
  assert.deepEqual(rec.suspensions().map((s) => [s.reason, s.generation]), [[1, 1]]);
});

test('a stream that breaks off is kept as a cut recording with partial; refused without', () => {
  const [first] = sessionStream();
  const cutShort = first.subarray(0, first.length - 7);
  const whole = new NettraceReader(LIVE);
  whole.push(cutShort);
  assert.throws(() => whole.finish(), (err: unknown) => err instanceof NettraceFormatError && /truncated/.test(err.message));
  const partial = new NettraceReader(LIVE);
  partial.push(first);
  const rec = partial.finish({ partial: true });
  assert.equal(rec.cut, true);
  assert.equal(rec.sampleCount, 6);
  assert.equal(rec.end, undefined);
  // Nothing past the header: nothing to keep.
  const empty = new NettraceReader(LIVE);
  empty.push(first.subarray(0, 10));
  assert.throws(() => empty.finish({ partial: true }), NettraceFormatError);
});
