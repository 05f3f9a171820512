import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readClrheap, writeClrheap } from '../clrheap/clrheap-file.js';
import { HeapAnalysis } from '../../heap/heap-analysis.js';
import { heapFormatOf } from '../../heap/heap-formats.js';
import { HeapSnapshotBuilder, type HeapSnapshot } from '../../heap/heap-snapshot.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { WireEncoder } from '../../wire/encoder.js';
import { openRecording } from './open-recording.js';
import { clrheapsInClrscope, HEAP_PIECE_BYTES, HEAP_SNAPSHOT_RECORD_TYPE } from './heap-record.js';
import { recordingFileChunks } from './save-recording.js';

/** A snapshot of `items` objects held by one static list, big enough (with `payload`) to need several records. */
function snapshot(items: number, payload: number): HeapSnapshot {
  const b = new HeapSnapshotBuilder();
  const list = b.addNode(b.typeId('List<Item>'), 32);
  for (let i = 0; i < items; i++) {
    const item = b.addNode(b.typeId('Item'), 24);
    b.addEdge(list, item, b.nameId('_items'));
    b.addEdge(item, b.addNode(b.typeId('System.Byte[]'), payload));
  }
  b.addRoot('static', 'static var Cache.Items', list);
  return b.build();
}

function recording(): Uint8Array[] {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 9, flags: 3, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: '0.1.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 0x21, mono: 1000, name: 'main' })
    .function({ functionId: 1, kind: 0, name: 'A.Main', module: 'A.dll', file: 'A.cs' })
    .sample({ mono: 2000, threadId: 1, flags: 1, cpuNs: 500, wallNs: 0, frames: [1] })
    .end({ mono: 4100, reason: 0 });
  return [enc.bytes()];
}

function concat(chunks: Iterable<Uint8Array>): Uint8Array {
  const list = [...chunks];
  const out = new Uint8Array(list.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of list) { out.set(c, at); at += c.length; }
  return out;
}

describe('heap snapshots inside a .clrscope recording', () => {
  const small = writeClrheap(snapshot(10, 100));
  // 60,000 items, 180,000 objects: a .clrheap of several MB, so several HEAP_SNAPSHOT records.
  const big = writeClrheap(snapshot(60_000, 500));
  const file = concat(recordingFileChunks(recordingFromStream(recording()), [], { heapSnapshots: [small, big] }));

  it('keeps each snapshot whole, in pieces under the wire\'s 1 MiB record, before END', () => {
    assert.ok(big.length > 3 * HEAP_PIECE_BYTES, `${big.length} bytes`);
    const back = clrheapsInClrscope(file);
    assert.equal(back.length, 2);
    assert.deepEqual(back[0], small);
    assert.deepEqual(back[1], big);
  });

  it('still opens as the same recording: readers skip the records they do not know', () => {
    const plain = concat(recordingFileChunks(recordingFromStream(recording()), []));
    const a = openRecording(file);
    const b = openRecording(plain);
    assert.equal(a.recording.sampleCount, 1);
    assert.equal(a.recording.sampleCount, b.recording.sampleCount);
    assert.deepEqual(a.recording.end, b.recording.end);
  });

  it('is a heap format: the last snapshot, analysed as the .clrheap it was', () => {
    const format = heapFormatOf('x.clrscope', file.subarray(0, 64));
    assert.equal(format?.id, 'clrscope');
    const read = new HeapAnalysis(format.reader(file)).typeStats();
    assert.deepEqual(read, new HeapAnalysis(readClrheap(big)).typeStats());
    assert.equal(read.find((t) => t.type === 'Item')?.count, 60_000);
    const none = concat(recordingFileChunks(recordingFromStream(recording()), []));
    assert.throws(() => format.reader(none), /^Error: the recording keeps no heap snapshot/);
  });

  it('a cut or reordered snapshot is one sentence', () => {
    // The file cut inside the big snapshot's pieces.
    const firstHeap = file.findIndex((_, i) => i > 16 && file[i] === HEAP_SNAPSHOT_RECORD_TYPE && file[i + 1] === 1 && file[i + 5] === 0);
    assert.ok(firstHeap > 0);
    assert.throws(() => clrheapsInClrscope(file.subarray(0, firstHeap + 2 * HEAP_PIECE_BYTES)), /^HeapRecordError: it ends inside the record at byte \d+$/);
    // A piece of the big snapshot taken out: the next one breaks the sequence.
    const start = firstHeap - 4;
    const length = new DataView(file.buffer, file.byteOffset).getUint32(start, true);
    const holed = concat([file.subarray(0, start), file.subarray(start + 4 + length)]);
    assert.throws(() => clrheapsInClrscope(holed), /^HeapRecordError: the heap snapshot record at byte \d+ is piece 1 of snapshot 1, whose first piece is missing$/);
    // A record length beyond the wire's limit.
    const bad = file.slice();
    new DataView(bad.buffer).setUint32(start, 5 << 20, true);
    assert.throws(() => clrheapsInClrscope(bad), new RegExp(`^HeapRecordError: the record at byte ${start} says it is 5242880 bytes long$`));
  });
});
