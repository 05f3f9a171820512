import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { EventKind, FunctionKind, SampleFlags } from '../../../structs/wire/records.js';
import { DEFAULT_FOLD, NO_FOLD } from '../../../structs/analysis/fold-options.js';
import { flatTreeToCollapsed } from '../../../structs/analysis/flat-tree-text.js';
import { ProfileWorkerCore } from './worker-core.js';
import type { FlameQuery, FlatTree, RecordingSummary, WorkerReply, WorkerRequest } from './protocol.js';
import type { AnalysisQueryMessage } from './analysis-protocol.js';

const START = 5_000_000_000;
const NS_PER_MIN = 60e9;
const THREADS = 4;
const PER_SECOND = 4;

/**
 * `minutes` of samples on 4 threads, 4 a second each, whose stacks run through the minute's
 * own function (Phase<minute>) so old minutes' frames are told apart; every 7th sample stamped
 * 1.5 s before its turn (batches out of time order), every 5th wall-only; an allocation event
 * every second (a type per minute), a GC pause every 10 s.
 */
function phasedStream(minutes: number): Uint8Array {
  const enc = new WireEncoder(1 << 16).preamble().hello({
    pid: 77, flags: 3, mono: START, unixNs: 1_760_000_000_000_000_000n, intervalNs: 250_000_000, wallThreadsPerTick: THREADS,
    runtimeVersion: '10.0.0', profilerVersion: 'test',
  });
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 900 + t, clrThreadId: t, mono: START, name: t === 4 ? 'io' : `worker-${t}` });
  const functions = 10 + minutes;
  for (let f = 1; f <= functions; f++) {
    const name = f <= 10 ? `App.Common.Step${f}` : `App.Phases.Phase${f - 11}`;
    enc.function({ functionId: f, kind: FunctionKind.Managed, name, module: 'App.dll', file: '' });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  const stacks = new Map<string, number>();
  const stackOf = (frames: number[]): number => {
    const key = frames.join(',');
    let id = stacks.get(key);
    if (id === undefined) {
      id = stacks.size + 1;
      stacks.set(key, id);
      enc.stack(id, 0, Uint32Array.from(frames));
    }
    return id;
  };
  for (let minute = 0; minute < minutes; minute++) {
    enc.string(minute + 1, `App.Types.Buffer${minute}`);
    for (let tick = 0; tick < 60 * PER_SECOND; tick++) {
      const tickMono = START + minute * NS_PER_MIN + tick * (1e9 / PER_SECOND);
      for (let t = 1; t <= THREADS; t++) {
        const i = (minute * 60 * PER_SECOND + tick) * THREADS + t;
        // Leaf first: a common step, the minute's phase, then the thread's entry.
        const frames = [1 + (i % 7), 11 + minute, 8 + (t % 3)];
        const late = i % 7 === 6 ? 1_500_000_000 : 0;
        const flags = i % 5 === 0 ? SampleFlags.Wall : SampleFlags.Cpu | SampleFlags.Wall;
        enc.stackSample(tickMono + t * 1000 - late, t, flags, flags & SampleFlags.Cpu ? 1_000_000 + (i % 11) * 1000 : 0, 250_000_000, stackOf(frames));
      }
      if (tick % PER_SECOND === 0) {
        enc.event({ kind: EventKind.Allocation, mono: tickMono + 500, threadId: 1 + (tick % THREADS), stackId: stackOf([1, 11 + minute, 9]), labelId: minute + 1, value1: 100_000 + tick, value2: 10 });
      }
      if (tick % (10 * PER_SECOND) === 5) enc.suspension({ mono: tickMono, durationNs: 50_000 + tick, suspendNs: 1000, reason: 1, generation: tick % 3, flags: 0 });
    }
  }
  enc.end({ mono: START + minutes * NS_PER_MIN, reason: 0 });
  return enc.bytes();
}

let requestId = 1;
function ask<K extends WorkerReply['kind']>(core: ProfileWorkerCore, request: WorkerRequest, kind: K): Extract<WorkerReply, { kind: K }> {
  const out = core.handle(request);
  assert.ok(out !== null);
  if (out.reply.kind !== kind) assert.fail(`expected a ${kind} reply, got ${JSON.stringify(out.reply)}`);
  return out.reply as Extract<WorkerReply, { kind: K }>;
}

function summary(core: ProfileWorkerCore): RecordingSummary {
  return ask(core, { kind: 'summary', requestId: requestId++ }, 'summary').summary;
}

function flame(core: ProfileWorkerCore, query: FlameQuery): FlatTree {
  return ask(core, { kind: 'flame', requestId: requestId++, query }, 'flame').tree;
}

/** A tree as plain data (typed arrays as arrays, labels by name). */
function plain(tree: FlatTree): unknown {
  return {
    ...tree,
    label: Array.from(tree.label, (l) => tree.labels[l]), labels: undefined, labelKind: undefined,
    parent: Array.from(tree.parent), depth: Array.from(tree.depth), total: Array.from(tree.total), self: Array.from(tree.self),
  };
}

const plainArrays = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)));

function feed(core: ProfileWorkerCore, bytes: Uint8Array, from: number, to: number): void {
  const out = core.handle({ kind: 'chunk', offset: from, bytes: bytes.slice(from, to) });
  assert.equal(out, null);
}

/**
 * Every view of the windowed worker against the whole recording's worker asked for the kept
 * window (from its cut on): flame graphs (metrics, threads, by thread, inverted, folded, events),
 * parallel stacks, functions, sandwich, timeline, event tables, the summary's totals and pauses.
 */
function assertSameAsWindowOfWhole(kept: ProfileWorkerCore, whole: ProfileWorkerCore): void {
  const s = summary(kept);
  const fromMs = s.keptFromMs;
  const win = fromMs === null ? {} : { fromMs };
  const all = summary(whole);
  assert.equal(s.keepMinutes, 3);
  const flameQueries: FlameQuery[] = [];
  for (const metric of ['cpu', 'wall', 'alloc-space'] as const) {
    for (const threadIds of [null, [2], [1, 4]]) {
      for (const groupByThread of [false, true]) {
        flameQueries.push({ metric, threadIds, groupByThread, inverted: false });
      }
    }
    flameQueries.push({ metric, threadIds: null, groupByThread: false, inverted: true, fold: DEFAULT_FOLD });
    flameQueries.push({ metric, threadIds: null, groupByThread: false, inverted: false, fold: { ...NO_FOLD, groupBy: 'namespace' } });
  }
  for (const q of flameQueries) {
    assert.deepEqual(plain(flame(kept, q)), plain(flame(whole, { ...q, ...win })), `flame ${JSON.stringify(q)} from ${fromMs}`);
  }
  // A window inside the kept part asks the same of both.
  const end = s.durationMs;
  const last = { metric: 'cpu' as const, threadIds: null, groupByThread: false, inverted: false, fromMs: end - 20_000 };
  assert.deepEqual(plain(flame(kept, last)), plain(flame(whole, last)));
  const parallel = (core: ProfileWorkerCore, w: object) => plainArrays(ask(core, { kind: 'parallel', requestId: requestId++, query: { mode: 'window', ...w } }, 'parallel').tree);
  assert.deepEqual(parallel(kept, {}), parallel(whole, win));
  const query: AnalysisQueryMessage = { metric: 'cpu', threadIds: null, fold: DEFAULT_FOLD };
  const functions = (core: ProfileWorkerCore, w: object) => plainArrays(ask(core, { kind: 'functions', requestId: requestId++, query: { ...query, ...w } }, 'functions').table);
  assert.deepEqual(functions(kept, {}), functions(whole, win));
  const sandwich = (core: ProfileWorkerCore, w: object) => plainArrays(ask(core, { kind: 'sandwich', requestId: requestId++, query: { ...query, ...w }, name: 'App.Common.Step1' }, 'sandwich').sandwich);
  assert.deepEqual(sandwich(kept, {}), sandwich(whole, win));
  const range = { fromMs: fromMs ?? 0, toMs: end, buckets: 50 };
  const timeline = (core: ProfileWorkerCore) => plainArrays(ask(core, { kind: 'timeline', requestId: requestId++, query: range }, 'timeline').timeline);
  assert.deepEqual(timeline(kept), timeline(whole));
  const tables = (core: ProfileWorkerCore, w: object) => {
    const r = ask(core, { kind: 'event-tables', requestId: requestId++, query: { threadIds: null, ...w } }, 'event-tables');
    return plainArrays({ types: r.types, exceptions: r.exceptions });
  };
  assert.deepEqual(tables(kept, {}), tables(whole, win));
  // The summary: the kept part's samples, threads' times and pauses; the recording's identity and length.
  const keptPauses = all.pauses.filter((p) => fromMs === null || p.startNs / 1e6 >= fromMs);
  assert.deepEqual(s.pauses, keptPauses);
  const wholeTree = flame(whole, { metric: 'wall', threadIds: null, groupByThread: false, inverted: false, ...win });
  const keptTree = flame(kept, { metric: 'wall', threadIds: null, groupByThread: false, inverted: false });
  assert.equal(keptTree.totalValue, wholeTree.totalValue);
  assert.equal(s.durationMs, all.durationMs);
  assert.equal(s.ended, all.ended);
  const wallOf = (x: RecordingSummary) => x.threads.reduce((a, t) => a + t.wallNs, 0);
  assert.equal(wallOf(s), keptTree.totalValue);
}

test('a kept window of 3 minutes answers every view as the whole recording answers for the kept part', () => {
  const bytes = phasedStream(12);
  const kept = new ProfileWorkerCore();
  const whole = new ProfileWorkerCore();
  kept.handle({ kind: 'reset', keepMinutes: 3 });
  const chunk = Math.ceil(bytes.length / 60);
  const cuts = new Set<number | null>();
  for (let at = 0; at < bytes.length; at += chunk) {
    const to = Math.min(bytes.length, at + chunk);
    feed(kept, bytes, at, to);
    feed(whole, bytes, at, to);
    const s = summary(kept);
    // Every few chunks and after each cut: every view, compared.
    if (!cuts.has(s.keptFromMs) || (at / chunk) % 9 === 4) assertSameAsWindowOfWhole(kept, whole);
    cuts.add(s.keptFromMs);
    // Bounded: no sample older than 3.3 minutes before the newest is held.
    if (s.keptFromMs !== null) assert.ok(s.durationMs - s.keptFromMs <= 3.3 * 60_000 + 2_000, `${s.durationMs - s.keptFromMs} ms kept`);
  }
  assert.ok(cuts.size > 20, `${cuts.size} cuts`);
  assertSameAsWindowOfWhole(kept, whole);
  const s = summary(kept);
  assert.ok(s.keptFromMs !== null && s.keptFromMs >= 8.7 * 60_000 && s.keptFromMs <= 9 * 60_000, String(s.keptFromMs));
});

test('old minutes leave the views: their frames, samples, allocations and pauses go', () => {
  const bytes = phasedStream(10);
  const kept = new ProfileWorkerCore();
  kept.handle({ kind: 'reset', keepMinutes: 2 });
  feed(kept, bytes, 0, bytes.length);
  const cpu = flatTreeToCollapsed(flame(kept, { metric: 'cpu', threadIds: null, groupByThread: false, inverted: false }));
  assert.doesNotMatch(cpu, /Phase[0-6]\b/);
  assert.match(cpu, /Phase9/);
  assert.match(cpu, /Phase8/);
  const s = summary(kept);
  const keptFromMs = s.keptFromMs ?? assert.fail('nothing was let go');
  assert.ok(keptFromMs >= 7.8 * 60_000 && keptFromMs <= 8 * 60_000, String(keptFromMs));
  // 4 threads x 4 samples/s over what is kept, give or take the late-stamped ones at the edge.
  const expected = (s.durationMs - keptFromMs) / 1000 * THREADS * PER_SECOND;
  assert.ok(Math.abs(s.sampleCount - expected) < 40, `${s.sampleCount} samples, ~${expected} expected`);
  assert.ok(s.pauses.every((p) => p.startNs / 1e6 >= keptFromMs) && s.pauses.length >= 12 && s.pauses.length <= 14, String(s.pauses.length));
  const tables = ask(kept, { kind: 'event-tables', requestId: requestId++, query: { threadIds: null } }, 'event-tables');
  assert.deepEqual(tables.types.rows.map((r) => r.type).sort(), ['App.Types.Buffer8', 'App.Types.Buffer9']);
  const timeline = ask(kept, { kind: 'timeline', requestId: requestId++, query: { buckets: 10 } }, 'timeline').timeline;
  assert.ok(timeline.fromMs >= keptFromMs, `${timeline.fromMs} < ${keptFromMs}`);
});

test('memory: the recording holds at most 1.1 windows of samples, in columns sized for them', () => {
  const bytes = phasedStream(30);
  const kept = new ProfileWorkerCore();
  kept.handle({ kind: 'reset', keepMinutes: 2 });
  const perMinute = 60 * PER_SECOND * THREADS;
  const chunk = 16 * 1024;
  let most = 0;
  let slots = 0;
  for (let at = 0; at < bytes.length; at += chunk) {
    feed(kept, bytes, at, Math.min(bytes.length, at + chunk));
    const rec = (kept as unknown as { feed: { recording: { sampleCount: number; sampleCapacity: number } } }).feed.recording;
    most = Math.max(most, rec.sampleCount);
    slots = Math.max(slots, rec.sampleCapacity);
  }
  // 2.2 minutes of samples, plus a chunk's and the late-stamped ones.
  assert.ok(most <= 2.2 * perMinute + 700, `${most} samples held`);
  assert.ok(slots <= 2 * 2.2 * perMinute, `${slots} slots`);
});

test('reset without keepMinutes keeps everything again; a bad keepMinutes is refused in one sentence', () => {
  const bytes = phasedStream(5);
  const core = new ProfileWorkerCore();
  core.handle({ kind: 'reset', keepMinutes: 1 });
  feed(core, bytes, 0, bytes.length);
  assert.ok(summary(core).keptFromMs !== null);
  core.handle({ kind: 'reset' });
  feed(core, bytes, 0, bytes.length);
  const s = summary(core);
  assert.equal(s.keptFromMs, null);
  assert.equal(s.keepMinutes, null);
  assert.equal(s.sampleCount, 5 * 60 * PER_SECOND * THREADS);
  const bad = core.handle({ kind: 'reset', keepMinutes: 0.5 });
  assert.ok(bad !== null && bad.reply.kind === 'error');
  assert.match(bad.reply.message, /^The views can keep 1 to 1440 whole minutes of a recording, not 0\.5; they keep all of it\.$/);
  assert.equal(summary(core).keepMinutes, null);
});
