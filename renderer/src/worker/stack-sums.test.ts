import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fromNettrace } from '../../../structs/formats/nettrace/nettrace-reader.js';
import { busyRecording } from '../../../structs/formats/nettrace/fixture-recordings.test-support.js';
import { saveRecording } from '../../../structs/formats/clrscope-file/save-recording.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { FunctionKind, SampleFlags } from '../../../structs/wire/records.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { DEFAULT_FOLD, NO_FOLD, type FoldOptions } from '../../../structs/analysis/fold-options.js';
import { ProfileWorkerCore } from './worker-core.js';
import { buildFlameTree } from './flame-tree.js';
import { buildParallelTree } from './parallel-stacks.js';
import { StackSums } from './stack-sums.js';
import { StreamFeed } from './stream-feed.js';
import { AnalysisCore, type FoldedView } from './analysis-core.js';
import type { FlameQuery, FlatTree, ParallelQuery, WorkerReply } from './protocol.js';

// A real .NET program's recording (dotnet-trace of test/targets' CPU-ratio program), saved
// as a .clrscope stream so the worker decodes it as it decodes a live session.
const nettrace = (): Recording => fromNettrace(gunzipSync(readFileSync(new URL('../../../../../structs/formats/nettrace/fixtures/dotnet-trace-cpu-ratio.nettrace.gz', import.meta.url))));

/**
 * `seconds` of samples on 5 threads (one unnamed, two sharing a name), 60 stacks, every
 * 7th sample stamped 1.5 s before the one ahead of it (threads' batches arrive out of order),
 * some wall-only, with GC pauses: windows fall across bucket edges.
 */
function spreadStream(seconds: number): Uint8Array {
  const enc = new WireEncoder(1 << 16).preamble().hello({
    pid: 9, flags: 3, mono: 2_000_000_000, unixNs: 1_760_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 8,
    runtimeVersion: '10.0.0', profilerVersion: 'test',
  });
  const names = ['main', '', 'pool', 'pool', 'io'];
  names.forEach((name, t) => enc.thread({ threadId: t + 1, osTid: 700 + t, clrThreadId: t + 1, mono: 2_000_000_000, name }));
  for (let f = 1; f <= 40; f++) enc.function({ functionId: f, kind: f % 9 === 0 ? FunctionKind.Native : FunctionKind.Managed, name: f % 9 === 0 ? `native_${f}` : `App.Ns${f % 4}.Type${f % 6}.M${f}`, module: f % 9 === 0 ? 'libcoreclr.so' : 'App.dll', file: '' });
  const perSecond = 200;
  for (let i = 0; i < seconds * perSecond; i++) {
    const s = (i * 7919) % 60;
    const frames = Array.from({ length: 3 + (s % 5) }, (_, k) => 1 + ((s * 11 + k * 5) % 40));
    const late = i % 7 === 6 ? 1_500_000_000 : 0;
    const flags = i % 4 === 0 ? SampleFlags.Wall : SampleFlags.Cpu | SampleFlags.Wall;
    enc.sample({ mono: 2_000_100_000 + i * (1e9 / perSecond) - late, threadId: 1 + (i % 5), flags, cpuNs: flags & SampleFlags.Cpu ? 1_000_000 + (i % 13) * 1000 : 0, wallNs: 10_000_000, frames });
    if (i % 900 === 450) enc.suspension({ mono: 2_000_100_000 + i * (1e9 / perSecond), durationNs: 70_000, suspendNs: 2000, reason: 1, generation: 0, flags: 0 });
  }
  enc.end({ mono: 2_000_100_000 + seconds * 1e9, reason: 0 });
  return enc.bytes();
}

const streams: [string, () => Uint8Array, number][] = [
  ['dotnet-trace recording of a .NET program', () => saveRecording(nettrace()), 3],
  ['5 min on 5 threads, out of time order', () => spreadStream(300), 5],
  ['busy recording, samples out of time order', () => saveRecording(busyRecording(20_000, { shuffled: true })), 4],
  ['wire fixture', () => fixtureStream(), 1],
];

/** Plain data of a tree, to compare with deepEqual (typed arrays as arrays). */
function plain(tree: FlatTree): unknown {
  return {
    ...tree,
    label: Array.from(tree.label, (l) => tree.labels[l]),
    labels: undefined,
    parent: Array.from(tree.parent), depth: Array.from(tree.depth),
    total: Array.from(tree.total), self: Array.from(tree.self), labelKind: undefined,
  };
}

function flameQueries(rec: Recording): FlameQuery[] {
  const threads = rec.threads().map((t) => t.id).sort((a, b) => a - b);
  const span = durationMs(rec);
  const windows = [{}, { fromMs: span / 3 }, { toMs: span / 2 }, { fromMs: span / 4, toMs: (span * 3) / 4 }, { fromMs: span * 2, toMs: span * 3 }];
  const threadSets = [null, threads.slice(0, 1), threads.filter((_, i) => i % 2 === 1), [999_999]];
  const folds: (FoldOptions | undefined)[] = [undefined, DEFAULT_FOLD, { ...NO_FOLD, groupBy: 'namespace' }];
  const out: FlameQuery[] = [];
  for (const metric of ['cpu', 'wall'] as const) {
    for (const window of windows) {
      for (const threadIds of threadSets) {
        for (const groupByThread of [false, true]) {
          out.push({ metric, threadIds, inverted: false, groupByThread, ...window });
        }
      }
    }
    for (const fold of folds) out.push({ metric, threadIds: null, inverted: true, groupByThread: false, ...(fold === undefined ? {} : { fold }) });
    out.push({ metric, threadIds: threads.slice(0, 2), inverted: true, groupByThread: true, fold: DEFAULT_FOLD, fromMs: span / 5 });
  }
  return out;
}

function durationMs(rec: Recording): number {
  const meta = rec.meta;
  if (meta === undefined) return 0;
  let last = meta.startMono;
  for (const m of rec.sampleColumns().mono) if (m > last) last = m;
  return (last - meta.startMono) / 1e6;
}

function reply(core: ProfileWorkerCore, request: Parameters<ProfileWorkerCore['handle']>[0]): WorkerReply {
  const out = core.handle(request);
  assert.ok(out !== null);
  if (out.reply.kind === 'error') assert.fail(out.reply.message);
  // Across the thread boundary as the worker sends it: the tree's buffers moved, not copied.
  return structuredClone(out.reply, { transfer: out.transfer });
}

for (const [name, bytesOf, stepsWithSamples] of streams) {
  test(`live refreshes from kept sums equal full rebuilds at every step: ${name}`, () => {
    const bytes = bytesOf();
    // The worker as the UI drives it, and a reference recording fed the same bytes: after every
    // step each query's incremental tree must equal a full scan of the reference.
    const core = new ProfileWorkerCore();
    const reference = new StreamFeed();
    const steps = 6;
    let id = 1;
    let checked = 0;
    let withSamples = 0;
    for (let step = 1; step <= steps; step++) {
      const from = Math.floor((bytes.length * (step - 1)) / steps);
      const to = Math.floor((bytes.length * step) / steps);
      assert.equal(core.handle({ kind: 'chunk', offset: from, bytes: bytes.slice(from, to) }), null);
      assert.equal(reference.push(from, bytes.slice(from, to)), null);
      const rec = reference.recording;
      if (rec.sampleCount > 0) withSamples++;
      const queries = flameQueries(rec);
      // Asked in a different order at each step, so no query only ever follows the same one.
      if (step % 2 === 0) queries.reverse();
      for (const query of queries) {
        const got = reply(core, { kind: 'flame', requestId: id++, query });
        assert.equal(got.kind, 'flame');
        const view = query.fold === undefined ? null : fullView(rec, query.fold);
        const expected = buildFlameTree(rec, query, undefined, view);
        assert.deepEqual(plain((got as { tree: FlatTree }).tree), plain(expected), `step ${step}, ${JSON.stringify(query)}`);
        checked++;
      }
      const span = durationMs(rec);
      const parallel: ParallelQuery[] = [{ mode: 'window' }, { mode: 'window', fromMs: span / 3, toMs: (span * 2) / 3 }, { mode: 'current', toMs: span / 2 }];
      for (const query of parallel) {
        const got = reply(core, { kind: 'parallel', requestId: id++, query }) as { tree: FlatTree & { threads: number[][] } };
        const expected = buildParallelTree(rec, query);
        assert.deepEqual({ ...(plain(got.tree) as object), threads: got.tree.threads }, { ...(plain(expected) as object), threads: expected.threads }, `step ${step}, ${JSON.stringify(query)}`);
      }
    }
    assert.ok(withSamples >= stepsWithSamples, `only ${withSamples} steps had samples`);
    assert.ok(checked > 300);
  });
}

/** The folded view a fresh worker would use for the reference (its own analysis, nothing shared). */
function fullView(rec: Recording, fold: FoldOptions): FoldedView | null {
  return new AnalysisCore(rec).view(fold);
}

test('the real recording has what the comparison needs: several threads, CPU and wall, folds that change stacks', () => {
  const rec = nettrace();
  assert.ok(rec.threads().length >= 2);
  const { cpuNs, wallNs } = rec.sampleColumns();
  assert.ok(cpuNs.some((v) => v > 0) && wallNs.some((v) => v > 0));
  const whole = buildFlameTree(rec, { metric: 'wall', threadIds: null, inverted: false, groupByThread: false });
  const folded = buildFlameTree(rec, { metric: 'wall', threadIds: null, inverted: false, groupByThread: false }, undefined, fullView(rec, { ...NO_FOLD, groupBy: 'namespace' }));
  assert.notEqual(whole.nodeCount, folded.nodeCount);
});

test('a window scans only the samples of the buckets it touches', () => {
  const rec = recordingFromStream([spreadStream(30)]);
  const sums = new StackSums(rec);
  const meta = rec.meta;
  assert.ok(meta !== undefined);
  const all = sums.indexRange({ from: -Infinity, to: Infinity });
  assert.deepEqual(all, { from: 0, to: rec.sampleCount });
  const { mono } = rec.sampleColumns();
  const span = Math.max(...mono) - meta.startMono;
  const range = sums.indexRange({ from: meta.startMono + span / 2, to: meta.startMono + span / 2 + 1e9 });
  let inside = 0;
  for (let i = 0; i < mono.length; i++) {
    if (mono[i] >= meta.startMono + span / 2 && mono[i] < meta.startMono + span / 2 + 1e9) {
      inside++;
      assert.ok(i >= range.from && i < range.to, `sample ${i} outside the range`);
    }
  }
  assert.ok(inside > 0);
  assert.ok(range.to - range.from < rec.sampleCount, `${range.to - range.from} of ${rec.sampleCount}`);
  assert.deepEqual(sums.indexRange({ from: meta.startMono + 5, to: meta.startMono + 5 }), { from: 0, to: 0 });
});

test('window sums take whole blocks from their sums and the ragged ends sample by sample, equal to a scan', () => {
  const rec = recordingFromStream([spreadStream(30)]);
  const meta = rec.meta;
  assert.ok(meta !== undefined);
  // 2 s blocks, so a 30 s recording has whole blocks, ragged ends and samples before HELLO's minute.
  const sums = new StackSums(rec, 2);
  const { mono, cpuNs, wallNs, stackId } = rec.sampleColumns();
  const s0 = meta.startMono;
  const windows: [number, number][] = [[-Infinity, Infinity], [s0, s0 + 4e9], [s0 + 1.5e9, s0 + 9.25e9], [s0 + 2e9, s0 + 2e9 + 1], [s0 - 5e9, s0 + 3e9], [s0 + 27e9, Infinity], [s0 + 40e9, Infinity], [s0 + 7e9, s0 + 3e9], [Number.NaN, s0 + 5e9]];
  for (const metric of ['cpu', 'wall'] as const) {
    const values = metric === 'cpu' ? cpuNs : wallNs;
    for (const [from, to] of windows) {
      const got = new Float64Array(rec.stackCount);
      const seen = sums.windowSums(metric, { from, to }, got);
      const expected = new Float64Array(rec.stackCount);
      let count = 0;
      let newest = -Infinity;
      for (let i = 0; i < mono.length; i++) {
        if (values[i] === 0 || mono[i] < from || mono[i] >= to) continue;
        expected[stackId[i]] += values[i];
        count++;
        newest = Math.max(newest, mono[i]);
      }
      assert.deepEqual(Array.from(got), Array.from(expected), `${metric} ${from}..${to}`);
      assert.deepEqual(seen, { count, newestMono: newest }, `${metric} ${from}..${to}`);
    }
  }
});
