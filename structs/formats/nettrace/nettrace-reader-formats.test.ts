// The reader on layouts clrscope's writer does not produce but the format allows: uncompressed
// event headers (with padding), format-5 metadata tags, method names from the runtime's own
// MethodLoadVerbose/ModuleLoad events, a 1 MHz QPC, and stacks of a 32-bit process.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameLabel } from '../../profile/frame-label.js';
import { FunctionKind, SampleFlags } from '../../wire/records.js';
import { ByteWriter } from './byte-writer.js';
import { BlockName, Provider, RuntimeEvent } from './constants.js';
import { EventBlockBuilder } from './event-block-builder.js';
import { fromNettrace } from './nettrace-reader.js';
import { ChunkedOutput, writeBlock, writeEndOfStream, writeStreamHeader, writeTraceObject } from './object-writer.js';
import { methodVerbosePayload } from './runtime-payloads.js';

interface RawEvent {
  metadataId: number;
  threadId: number;
  stackId: number;
  timestamp: number;
  payload: Uint8Array;
}

function metadata(id: number, provider: string, eventId: number, version: number, opcodeTag: boolean): Uint8Array {
  const w = new ByteWriter();
  w.i32(id).utf16z(provider).i32(eventId).utf16z('').u64(0).i32(version).i32(4);
  w.i32(0); // no V1 fields
  if (opcodeTag) w.i32(1).u8(1).u8(10); // format 5: tag of 1 byte, kind 1 (opcode), opcode 10
  return w.take();
}

/** A file with the metadata compressed as the runtime writes it and the events uncompressed. */
function handBuiltFile(pointerSize: 4 | 8): Uint8Array {
  const out = new ChunkedOutput();
  writeStreamHeader(out);
  writeTraceObject(out, {
    syncTimeUnixMs: Date.UTC(2025, 0, 2, 3, 4, 5, 6), syncTimeQpc: 1_000_000, qpcFrequency: 1_000_000, pointerSize, processId: 99, numberOfProcessors: 4, expectedCpuSamplingRate: 2_000_000,
  });
  const meta = new EventBlockBuilder();
  const defs: [number, string, number, number][] = [
    [1, Provider.SampleProfiler, 0, 0],
    [2, Provider.Runtime, RuntimeEvent.MethodLoadVerbose, 1],
    [3, Provider.Runtime, RuntimeEvent.ModuleLoad, 2],
    [4, Provider.Runtime, RuntimeEvent.GCSuspendEEBegin, 1],
    [5, Provider.Runtime, RuntimeEvent.GCStart, 2],
    [6, Provider.Runtime, RuntimeEvent.GCRestartEEEnd, 1],
  ];
  for (const [id, provider, eventId, version] of defs) {
    meta.tryAdd({ metadataId: 0, sequenceNumber: 0, threadId: 7, captureThreadId: 0, captureProcNumber: 0xffffffff, stackId: 0, timestamp: 1_000_000, sorted: true }, metadata(id, provider, eventId, version, id % 2 === 1));
  }
  writeBlock(out, BlockName.Metadata, meta.contentLength, (w) => meta.writeContent(w));

  const stacks = new ByteWriter();
  stacks.u32(1).u32(1);
  const ips = [0x40001010, 0x40002020];
  stacks.u32(ips.length * pointerSize);
  for (const ip of ips) {
    if (pointerSize === 8) stacks.u64(ip);
    else stacks.u32(ip);
  }
  writeBlock(out, BlockName.Stack, stacks.length, (w) => w.append(stacks.bytes()));

  const method = (start: number, namespace: string, name: string, moduleId: number): Uint8Array => methodVerbosePayload({
    methodId: start, moduleId, startAddress: start, size: 0x100, token: 0x06000001, flags: 8, namespace, name, signature: 'void  (int32)',
  });
  const module = (moduleId: number, path: string): Uint8Array => new ByteWriter().u64(moduleId).u64(1).u32(0).u32(0).utf16z(path).utf16z('').u16(0).take();
  const events: RawEvent[] = [
    { metadataId: 3, threadId: 7, stackId: 0, timestamp: 1_000_100, payload: module(0x55, '/app/App.dll') },
    { metadataId: 2, threadId: 7, stackId: 0, timestamp: 1_000_200, payload: method(0x40001000, 'App.Worker', 'Hot', 0x55) },
    { metadataId: 2, threadId: 7, stackId: 0, timestamp: 1_000_300, payload: method(0x40002000, 'App.Program', 'Main', 0x55) },
    { metadataId: 1, threadId: 7, stackId: 1, timestamp: 1_001_000, payload: new ByteWriter().i32(2).take() },
    { metadataId: 4, threadId: 8, stackId: 0, timestamp: 1_001_500, payload: new ByteWriter().u32(1).u32(1).u16(0).take() },
    { metadataId: 5, threadId: 8, stackId: 0, timestamp: 1_001_600, payload: new ByteWriter().u32(1).u32(2).u32(0).u32(0).u16(0).u64(0).take() },
    { metadataId: 6, threadId: 8, stackId: 0, timestamp: 1_001_900, payload: new ByteWriter().u16(0).take() },
    // Out of time order, on another thread.
    { metadataId: 1, threadId: 8, stackId: 1, timestamp: 1_000_900, payload: new ByteWriter().i32(1).take() },
  ];
  const body = new ByteWriter();
  body.u16(20).u16(0).u64(1_000_100).u64(1_001_900);
  events.forEach((e, i) => {
    const payloadPadding = (4 - (e.payload.length % 4)) % 4;
    body.i32(76 + e.payload.length + payloadPadding); // EventSize: the rest of the header, payload and padding
    body.u32(e.metadataId | 0x80000000).u32(i + 1).u64(e.threadId).u64(e.threadId).u32(0xffffffff).u32(e.stackId).u64(e.timestamp);
    body.zeros(32).i32(e.payload.length).append(e.payload).zeros(payloadPadding);
  });
  writeBlock(out, BlockName.Event, body.length, (w) => w.append(body.bytes()));
  writeBlock(out, BlockName.SequencePoint, 12, (w) => w.u64(1_002_000).u32(0));
  writeEndOfStream(out);
  return out.takeChunk(true) ?? new Uint8Array(0);
}

for (const pointerSize of [8, 4] as const) {
  test(`uncompressed events, format-5 tags and the runtime's method events (${pointerSize * 8}-bit)`, () => {
    const rec = fromNettrace(handBuiltFile(pointerSize));
    assert.equal(rec.sampleCount, 2);
    // Samples come out in time order: thread 8's external sample first.
    assert.deepEqual(Array.from(rec.sampleColumns().mono), [1_000_900_000, 1_001_000_000]);
    const labels = (i: number): string[] => Array.from(rec.stackFrames(rec.sampleStackId(i)), (id) => frameLabel(rec.functionInfo(id) ?? { id, kind: 2, name: '?', module: '', file: '', moduleId: 0, token: 0 }));
    assert.deepEqual(labels(1), ['App.Worker.Hot', 'App.Program.Main']);
    assert.deepEqual(labels(0), labels(1));
    const hot = rec.functions().find((f) => f.name === 'App.Worker.Hot');
    assert.deepEqual([hot?.kind, hot?.module], [FunctionKind.Managed, 'App.dll']);
    // Another tool's file: a sample is worth the time to its thread's next one; each thread's
    // only sample here is worth the 2 ms interval, cut at the file's last event.
    assert.deepEqual([rec.sampleFlags(1), rec.sampleCpuNs(1), rec.sampleWallNs(1)], [SampleFlags.Cpu | SampleFlags.Wall, 900_000, 900_000]);
    assert.deepEqual([rec.sampleFlags(0), rec.sampleCpuNs(0)], [SampleFlags.Wall, 0]);
    assert.deepEqual(rec.threads().map((t) => t.osTid).sort(), [7, 8]);
    assert.equal(rec.meta?.pid, 99);
    assert.equal(rec.meta?.startMono, 1_000_000_000);
    assert.equal(rec.meta?.startUnixNs, BigInt(Date.UTC(2025, 0, 2, 3, 4, 5, 6)) * 1_000_000n);
    assert.deepEqual(rec.suspensions(), [{ mono: 1_001_500_000, durationNs: 400_000, suspendNs: 400_000, reason: 1, generation: 2, flags: 0 }]);
  });
}
