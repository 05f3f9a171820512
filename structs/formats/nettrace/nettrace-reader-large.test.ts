// A 2 GiB file, generated on the fly and never held whole, streams through the reader with
// progress and bounded memory.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteWriter } from './byte-writer.js';
import { BlockName, Provider } from './constants.js';
import { EventBlockBuilder } from './event-block-builder.js';
import { encodeMetadataPayload, ThreadSampleEvent } from './event-definitions.js';
import { fromNettrace } from './nettrace-reader.js';
import { ChunkedOutput, writeBlock, writeEndOfStream, writeStreamHeader, writeTraceObject } from './object-writer.js';

const GiB = 2 ** 30;

/** Metadata for ThreadSample (1) and an unrelated runtime event (2), then ~100 KB event blocks up to `total` bytes. */
function* bigFile(total: number): Generator<Uint8Array> {
  const out = new ChunkedOutput();
  writeStreamHeader(out);
  writeTraceObject(out, { syncTimeUnixMs: 0, syncTimeQpc: 0, qpcFrequency: 1e9, pointerSize: 8, processId: 1, numberOfProcessors: 1, expectedCpuSamplingRate: 1e6 });
  const header = { metadataId: 0, sequenceNumber: 0, threadId: 1, captureThreadId: 0, captureProcNumber: 0, stackId: 0, timestamp: 0, sorted: true };
  const meta = new EventBlockBuilder();
  meta.tryAdd(header, encodeMetadataPayload(1, ThreadSampleEvent));
  // ThreadPoolWorkerThreadStart (50): an event the reader skips (80, ExceptionThrown, is read as an exception now).
  meta.tryAdd(header, encodeMetadataPayload(2, { provider: Provider.Runtime, eventId: 50, name: '', keywords: 0n, version: 1, level: 4, fields: [] }));
  writeBlock(out, BlockName.Metadata, meta.contentLength, (w) => meta.writeContent(w));
  // One block body, framed again and again: its events are deltas from the block start, so every copy is valid.
  const block = new EventBlockBuilder();
  block.tryAdd({ ...header, metadataId: 1, sequenceNumber: 1, timestamp: 10 }, new ByteWriter().i32(2).take());
  const payload = new Uint8Array(200);
  for (let seq = 2; block.tryAdd({ ...header, metadataId: 2, sequenceNumber: seq, timestamp: 10 * seq }, payload); seq++);
  const body = new ByteWriter();
  block.writeContent(body);
  const bytes = body.take();
  let written = 0;
  while (written < total) {
    writeBlock(out, BlockName.Event, bytes.length, (w) => w.append(bytes));
    const chunk = out.takeChunk();
    if (chunk !== undefined) {
      written += chunk.length;
      yield chunk;
    }
  }
  writeEndOfStream(out);
  yield out.takeChunk(true) ?? new Uint8Array(0);
}

test('a 2 GiB file streams through with progress and without being held', () => {
  const memory = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = memory();
  let peak = before;
  let calls = 0;
  let last = 0;
  const rec = fromNettrace(bigFile(2 * GiB), {
    totalBytes: 2 * GiB,
    onProgress: (read, total) => {
      assert.equal(total, 2 * GiB);
      assert.ok(read > last);
      last = read;
      if (++calls % 256 === 0) peak = Math.max(peak, memory());
    },
  });
  assert.ok(last >= 2 * GiB, `read ${last} bytes`);
  assert.ok(calls > 1000);
  // One sample per block: about 21,000 of them.
  assert.ok(rec.sampleCount > 20_000, `${rec.sampleCount} samples`);
  assert.ok(peak - before < 128 * 1024 * 1024, `memory grew by ${((peak - before) / 2 ** 20).toFixed(0)} MiB`);
});
