import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { frameLabel } from '../../profile/frame-label.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import type { Recording } from '../../profile/recording.js';
import { EndReason, FunctionKind, HelloFlags, SampleFlags } from '../../wire/records.js';
import { NettraceFormatError } from './nettrace-format-error.js';
import { fromNettrace, fromNettraceAsync, NettraceReader } from './nettrace-reader.js';
import { toNettrace } from './recording-to-nettrace.js';
import { busyRecording, smallRecording } from './fixture-recordings.test-support.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../../../../structs/formats/nettrace/fixtures/${name}`, import.meta.url));

function rejects(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(() => fromNettrace(bytes), (err: unknown) => {
    assert.ok(err instanceof NettraceFormatError, `not a NettraceFormatError: ${String(err)}`);
    assert.match(err.message, pattern);
    // One sentence: no line breaks, ends with a full stop.
    assert.ok(!err.message.includes('\n') && err.message.endsWith('.'), err.message);
    return true;
  });
}

/** Leaf (exclusive) and inclusive sample counts per frame label, as a profiler's top table counts them. */
function counts(rec: Recording): Map<string, { exclusive: number; inclusive: number }> {
  const out = new Map<string, { exclusive: number; inclusive: number }>();
  rec.forEachSample((_i, _m, _t, stackId) => {
    const labels = Array.from(rec.stackFrames(stackId), (id) => frameLabel(rec.functionInfo(id) ?? { id, kind: 2, name: '?', module: '', file: '', moduleId: 0, token: 0 }));
    labels.forEach((label, i) => {
      let c = out.get(label);
      if (c === undefined) out.set(label, (c = { exclusive: 0, inclusive: 0 }));
      if (i === 0) c.exclusive++;
      if (labels.indexOf(label) === i) c.inclusive++;
    });
  });
  return out;
}

test('clrscope\'s own file reads back with the same samples, stacks, threads, pauses and HELLO', () => {
  const rec = recordingFromStream([fixtureStream()]);
  const back = fromNettrace(toNettrace(rec));
  assert.equal(back.sampleCount, rec.sampleCount);
  assert.equal(toCollapsed(back, { metric: 'samples', groupByThread: true }), toCollapsed(rec, { metric: 'samples', groupByThread: true }));
  assert.deepEqual(back.threads().map((t) => [t.osTid, t.name]), rec.threads().map((t) => [t.osTid, t.name]));
  // The same HELLO, except that the CPU comes back counted per sample: an estimate, and marked so.
  assert.deepEqual(back.meta, rec.meta === undefined ? undefined : { ...rec.meta, approximateCpu: true, flags: rec.meta.flags | HelloFlags.ApproximateCpu });
  assert.deepEqual(Array.from(back.sampleColumns().mono), Array.from(rec.sampleColumns().mono));
  // Function kinds survive: natives and synthetic frames come back as what they were.
  const kinds = new Map(back.functions().map((f) => [frameLabel(f), f.kind]));
  assert.equal(kinds.get('libc.so.6!futex_wait'), FunctionKind.Native);
  assert.equal(kinds.get('[libcoreclr.so]'), FunctionKind.Native);
  assert.equal(kinds.get('App.Worker.Hot'), FunctionKind.Managed);
  assert.equal(back.end?.reason, EndReason.Detached);
  assert.equal(back.cut, false);
});

test('sample values are the sampling interval: CPU only for managed (type 2) samples', () => {
  const rec = smallRecording();
  const back = fromNettrace(toNettrace(rec));
  const interval = rec.meta?.intervalNs ?? 0;
  assert.deepEqual([back.sampleCpuNs(0), back.sampleWallNs(0), back.sampleFlags(0)], [interval, interval, SampleFlags.Cpu | SampleFlags.Wall]);
  assert.deepEqual([back.sampleCpuNs(1), back.sampleWallNs(1), back.sampleFlags(1)], [0, interval, SampleFlags.Wall]);
  assert.deepEqual(back.suspensions(), rec.suspensions());
});

test('GC pauses, incomplete stacks and many blocks survive a round trip', () => {
  const rec = busyRecording(20_000);
  const back = fromNettrace(toNettrace(rec));
  assert.deepEqual(back.suspensions(), rec.suspensions());
  assert.equal(toCollapsed(back, { metric: 'samples' }), toCollapsed(rec, { metric: 'samples' }));
  const incomplete = (r: Recording): number => Array.from(r.sampleColumns().flags).filter((f) => f & SampleFlags.Incomplete).length;
  assert.equal(incomplete(back), incomplete(rec));
});

test('the result does not depend on how the bytes are split', async () => {
  const bytes = toNettrace(busyRecording(600));
  const whole = toCollapsed(fromNettrace(bytes), { metric: 'samples', groupByThread: true });
  const reader = new NettraceReader();
  for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
  assert.equal(toCollapsed(reader.finish(), { metric: 'samples', groupByThread: true }), whole);
  for (const size of [7, 333, 65536]) {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
    }
    const progress: number[] = [];
    const rec = await fromNettraceAsync(chunks(), { onProgress: (read) => progress.push(read) });
    assert.equal(toCollapsed(rec, { metric: 'samples', groupByThread: true }), whole, `chunks of ${size}`);
    assert.equal(progress[progress.length - 1], bytes.length);
  }
});

test('a dotnet-trace recording reads as TraceEvent reads it: samples, threads, top methods', () => {
  const bytes = gunzipSync(fixture('dotnet-trace-cpu-ratio.nettrace.gz'));
  const expected = JSON.parse(fixture('dotnet-trace-cpu-ratio.tracecheck.json').toString('utf8')) as {
    samples: number; samplesByType: { managed: number; external: number }; threads: { tid: number; samples: number }[];
    processes: number[]; sessionStartUtc: string; methods: { method: string; exclusive: number; inclusive: number }[]; gc: { suspendEEStart: number };
  };
  const rec = fromNettrace(bytes);
  assert.equal(rec.sampleCount, expected.samples);
  const cpuSamples = Array.from(rec.sampleColumns().flags).filter((f) => f & SampleFlags.Cpu).length;
  assert.equal(cpuSamples, expected.samplesByType.managed, 'CPU samples are the managed (type 2) ones');
  assert.deepEqual(rec.threads().map((t) => t.osTid).sort(), expected.threads.map((t) => t.tid).sort());
  for (const t of expected.threads) {
    const id = rec.threads().find((x) => x.osTid === t.tid)?.id;
    assert.equal(Array.from(rec.sampleColumns().threadId).filter((x) => x === id).length, t.samples, `thread ${t.tid}`);
  }
  assert.equal(rec.meta?.pid, expected.processes[0]);
  assert.equal(rec.meta?.runtimeVersion, '10.0.12');
  assert.equal(new Date(Number((rec.meta?.startUnixNs ?? 0n) / 1_000_000n)).toISOString(), expected.sessionStartUtc.replace(/0000Z$/, 'Z'));
  const ours = counts(rec);
  for (const m of expected.methods) {
    // TraceEvent appends the signature's argument list; clrscope names methods without it.
    const name = m.method.slice(0, m.method.indexOf('('));
    assert.deepEqual(ours.get(name), { exclusive: m.exclusive, inclusive: m.inclusive }, name);
  }
  assert.equal(expected.methods[0].method.startsWith('Clrscope.Targets.Scenarios.CpuWork.Heavy('), true);
  // The runtime's own sample profiler suspends the runtime for each sample (reason "other", no
  // GC): not the program's pauses, which TraceEvent's GC statistics do not count either.
  assert.ok((expected.gc.suspendEEStart ?? 0) > 300);
  assert.equal(rec.suspensions().length, 0);
  assert.equal(rec.meta?.approximateCpu, true);
});

test('wrong magic, old and new versions are refused with one sentence naming both versions', () => {
  rejects(new TextEncoder().encode('PK\u0003\u0004 not a trace at all'), /^Not a \.nettrace file/);
  const netperf = new Uint8Array([0x14, 0, 0, 0, ...new TextEncoder().encode('!FastSerialization.1')]);
  rejects(netperf, /format version 3\); clrscope reads versions 4 and 5/);
  // Format 6: "Nettrace", a reserved zero, then major 6, minor 0.
  const v6 = new Uint8Array([...new TextEncoder().encode('Nettrace'), 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
  rejects(v6, /uses format version 6; clrscope reads versions 4 and 5/);
  const newer = toNettrace(smallRecording());
  newer[8 + 24 + 3] = 5; // the Trace object's version
  rejects(newer, /^This \.nettrace file's Trace object is version 5, newer than the version 4 of nettrace formats 4 and 5, which clrscope reads\.$/);
  rejects(new Uint8Array(0), /empty/);
});

test('a damaged header says what is damaged, not that a version clrscope reads is one it does not', () => {
  // Before: "This .nettrace file uses format version 4; clrscope reads versions 4 and 5".
  const zeroed = toNettrace(smallRecording());
  zeroed.fill(0, 8, 12); // the signature's length, as format 6 begins
  zeroed.set([4, 0, 0, 0], 12);
  rejects(zeroed, /^Corrupt \.nettrace file: the header after "Nettrace" is damaged: it starts with the zero that only format 6 and later write, followed by version 4, and not with the "!FastSerialization\.1" header of formats 4 and 5\.$/);
  const needy = toNettrace(smallRecording());
  needy[8 + 24 + 7] = 99; // the Trace object's minimum reader version; its version stays 4
  rejects(needy, /^Corrupt \.nettrace file: its Trace object at byte 32 is version 4 but says it needs a reader of version 99, newer than itself\.$/);
  const newerNeeds = toNettrace(smallRecording());
  newerNeeds[8 + 24 + 3] = 6;
  newerNeeds[8 + 24 + 7] = 5;
  rejects(newerNeeds, /^This \.nettrace file's Trace object is version 6, and needs a reader of version 5, newer than the version 4/);
  const older = toNettrace(smallRecording());
  older[8 + 24 + 3] = 3;
  older[8 + 24 + 7] = 3;
  rejects(older, /^This \.nettrace file's Trace object is version 3, older than the version 4 of nettrace formats 4 and 5, which clrscope reads\.$/);
});

test('a file cut anywhere is reported as truncated, never read as a partial recording', () => {
  const bytes = toNettrace(smallRecording());
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.throws(() => fromNettrace(bytes.subarray(0, cut)), (err: unknown) => {
      assert.ok(err instanceof NettraceFormatError, `cut at ${cut}: ${String(err)}`);
      assert.match(err.message, /truncated|Not a \.nettrace file|Corrupt/, `cut at ${cut}`);
      return true;
    });
  }
  rejects(bytes.subarray(0, 200), /^The \.nettrace file is truncated: it ends at byte 200, inside the MetadataBlock that starts at byte 102\.$/);
  rejects(bytes.subarray(0, bytes.length - 1), /before its end-of-stream marker/);
});

test('corrupt sizes and bytes are refused with their offset', () => {
  const bytes = toNettrace(smallRecording());
  const badSize = bytes.slice();
  new DataView(badSize.buffer).setInt32(102 + 29, 0x7fffffff, true);
  rejects(badSize, /^Corrupt \.nettrace file: the MetadataBlock at byte 102 declares a size of 2147483647 bytes\.$/);
  const badTag = bytes.slice();
  badTag[102] = 9;
  rejects(badTag, /expected an object at byte 102/);
  // Every single-byte corruption either reads or fails with a NettraceFormatError.
  for (let i = 0; i < bytes.length; i += 3) {
    const broken = bytes.slice();
    broken[i] ^= 0xa5;
    try {
      fromNettrace(broken);
    } catch (err) {
      assert.ok(err instanceof NettraceFormatError, `byte ${i}: ${String(err)}`);
    }
  }
});
