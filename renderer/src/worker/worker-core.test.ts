import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { flatTreeToCollapsed } from '../../../structs/analysis/flat-tree-text.js';
import type { FlameQuery, WorkerReply } from './protocol.js';
import { ProfileWorkerCore } from './worker-core.js';
import { buildFlameTree } from './flame-tree.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';
import { hottestLines } from '../../../structs/analysis/hottest-lines.js';
import { knownLines } from '../../../structs/profile/frame-lines.js';
import { ProfileAnalysis } from '../../../structs/analysis/profile-analysis.js';

const query: FlameQuery = { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false };

function send(core: ProfileWorkerCore, bytes: Uint8Array, chunk = 50): (WorkerReply | null)[] {
  const replies: (WorkerReply | null)[] = [];
  for (let at = 0; at < bytes.length; at += chunk) replies.push(core.handle({ kind: 'chunk', offset: at, bytes: bytes.slice(at, at + chunk) })?.reply ?? null);
  return replies;
}

test('chunks, then flame, parallel and summary replies carrying the request id', () => {
  const core = new ProfileWorkerCore();
  const bytes = streamFromCollapsed('t;A;B 10\nt;A;C 5\nu;A;B 1');
  assert.ok(send(core, bytes).every((r) => r === null));
  const flame = core.handle({ kind: 'flame', requestId: 7, query });
  assert.ok(flame !== null && flame.reply.kind === 'flame');
  assert.equal(flame.reply.requestId, 7);
  assert.equal(flatTreeToCollapsed(flame.reply.tree), 'A;B 11\nA;C 5\n');
  // The tree's typed arrays go as transferables, each buffer once.
  assert.equal(flame.transfer.length, 6);
  assert.ok(flame.transfer.includes(flame.reply.tree.total.buffer as ArrayBuffer));
  const par = core.handle({ kind: 'parallel', requestId: 8, query: { mode: 'current' } });
  assert.ok(par !== null && par.reply.kind === 'parallel');
  assert.deepEqual(par.reply.tree.threads[0], [1, 2]);
  const sum = core.handle({ kind: 'summary', requestId: 9 });
  assert.ok(sum !== null && sum.reply.kind === 'summary');
  assert.equal(sum.reply.requestId, 9);
  assert.equal(sum.reply.summary.sampleCount, 3);
});

test('reset starts a new recording; a re-sent stream from byte 0 then decodes again', () => {
  const core = new ProfileWorkerCore();
  const bytes = streamFromCollapsed('t;A 10');
  send(core, bytes);
  core.handle({ kind: 'reset' });
  const empty = core.handle({ kind: 'summary', requestId: 1 });
  assert.ok(empty !== null && empty.reply.kind === 'summary');
  assert.equal(empty.reply.summary.pid, null);
  assert.equal(empty.reply.summary.sampleCount, 0);
  assert.ok(send(core, bytes, 13).every((r) => r === null));
  const flame = core.handle({ kind: 'flame', requestId: 2, query });
  assert.ok(flame !== null && flame.reply.kind === 'flame');
  assert.equal(flame.reply.tree.totalValue, 10);
});

test('a corrupt stream: one error reply with no request id, the sentence also in the summary', () => {
  const core = new ProfileWorkerCore();
  const good = streamFromCollapsed('t;A 10');
  const enc = new WireEncoder().rawBytes(good).rawBytes([0, 0, 0, 0]);
  const replies = send(core, enc.bytes().slice(), 1000).filter((r) => r !== null);
  const message = `Corrupt clrscope stream: the record at byte ${good.length} declares a length of 0, too short to hold its type byte.`;
  assert.deepEqual(replies, [{ kind: 'error', requestId: null, message }]);
  assert.equal(core.handle({ kind: 'chunk', offset: good.length + 4, bytes: new Uint8Array(8) }), null);
  const sum = core.handle({ kind: 'summary', requestId: 3 });
  assert.ok(sum !== null && sum.reply.kind === 'summary');
  assert.equal(sum.reply.summary.error, message);
  // What was recorded before the corruption is still there.
  assert.equal(sum.reply.summary.sampleCount, 1);
});

test('an unknown request kind gets an error reply naming it', () => {
  const core = new ProfileWorkerCore();
  const out = core.handle(JSON.parse('{"kind":"bogus","requestId":4}'));
  assert.deepEqual(out?.reply, { kind: 'error', requestId: 4, message: 'The profile worker does not know the request kind "bogus".' });
});

/** Three minutes of 4 threads sampled every 100 ms over 6 stacks, in wire v2. */
function minutesStream(): Uint8Array {
  const mono0 = 1_000_000_000;
  const enc = new WireEncoder().preamble().hello({ pid: 7, flags: 3, mono: mono0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 100_000_000, wallThreadsPerTick: 4, runtimeVersion: '10.0.0', profilerVersion: 'test' });
  for (let t = 1; t <= 4; t++) enc.thread({ threadId: t, osTid: 100 + t, clrThreadId: t, mono: mono0, name: t === 4 ? 'main' : `w${t}` });
  for (let f = 1; f <= 8; f++) {
    enc.function({ functionId: f, kind: 0, name: `App.F${f}`, module: 'App.dll', file: '' });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  for (let k = 1; k <= 6; k++) enc.stack(k, 0, [k + 2, k % 2 === 0 ? 2 : 1, 1].slice(0, 1 + (k % 3)).concat([1]));
  for (let tick = 0; tick < 1800; tick++) {
    for (let t = 1; t <= 4; t++) {
      const k = 1 + ((tick * 7 + t * 3) % 6);
      enc.stackSample(mono0 + tick * 100_000_000 + t * 1000, t, 3, 1000 + ((tick * t) % 977), 100_000_000, k);
    }
  }
  return enc.end({ mono: mono0 + 1800 * 100_000_000, reason: 0 }).bytes().slice();
}

test('opening a stream keeps only the bytes and the sums: the whole flame graph and the summary need no sample columns; a window or a thread query decodes them again, equal to a full decode', () => {
  const bytes = minutesStream();
  const full = recordingFromStream([bytes]);
  const core = new ProfileWorkerCore();
  assert.ok(send(core, bytes, 4096).every((r) => r === null));
  const rec = (core as unknown as { feed: { recording: Recording } }).feed.recording;
  const tree = (q: FlameQuery): string => {
    const out = core.handle({ kind: 'flame', requestId: 1, query: q });
    assert.ok(out !== null && out.reply.kind === 'flame');
    return `${flatTreeToCollapsed(out.reply.tree)}count ${out.reply.tree.sampleCount}`;
  };
  const expected = (q: FlameQuery): string => {
    const t = buildFlameTree(full, q);
    return `${flatTreeToCollapsed(t)}count ${t.sampleCount}`;
  };
  for (const metric of ['cpu', 'wall'] as const) assert.equal(tree({ ...query, metric }), expected({ ...query, metric }));
  const sum = core.handle({ kind: 'summary', requestId: 2 });
  assert.ok(sum !== null && sum.reply.kind === 'summary');
  assert.equal(sum.reply.summary.sampleCount, full.sampleCount);
  assert.equal(rec.keepsSamples, false, 'no sample columns yet');
  assert.ok(rec.recentSamples().columns.mono.length < full.sampleCount / 4, 'only the last chunk\'s samples are held');
  const window: FlameQuery = { ...query, metric: 'wall', fromMs: 61_000, toMs: 125_500 };
  assert.ok(expected(window).split('\n').length >= 6, expected(window));
  assert.equal(tree(window), expected(window));
  assert.equal(rec.keepsSamples, true, 'the window needed every sample: decoded again, and kept from now on');
  assert.deepEqual(rec.sampleColumns(), full.sampleColumns());
  assert.equal(tree({ ...query, threadIds: [2, 4] }), expected({ ...query, threadIds: [2, 4] }));
  assert.equal(tree({ ...query, groupByThread: true }), expected({ ...query, groupByThread: true }));
});

/** The minutes stream fed to a worker core as it arrives: the core, its recording, and the same stream decoded whole. */
function liveMinutes(): { full: Recording; core: ProfileWorkerCore; rec: Recording } {
  const bytes = minutesStream();
  const core = new ProfileWorkerCore();
  send(core, bytes, 4096);
  return { full: recordingFromStream([bytes]), core, rec: (core as unknown as { feed: { recording: Recording } }).feed.recording };
}

test('naming each function\'s hottest source line takes the running sums: a live recording keeps no sample columns for it, and the lines equal those from every sample', () => {
  const { full, core, rec } = liveMinutes();
  // Each frame at a line of its own (frame f at line 10·f) of one file.
  const frameIds = [1, 2, 3, 4, 5, 6, 7, 8];
  const lines = frameIds.map((f) => 10 * f);
  const request = { kind: 'lines' as const, requestId: 5, frameIds, fileIndex: frameIds.map(() => 0), lines, files: ['/src/App.cs'] };
  const out = core.handle(request);
  assert.ok(out !== null && out.reply.kind === 'sources');
  assert.equal(rec.keepsSamples, false, 'the lines needed no sample columns');
  const expected = hottestLines(full, knownLines(full, frameIds, lines.map((line) => ({ file: '/src/App.cs', line }))));
  assert.ok(expected.size >= 6, `${expected.size} functions with lines`);
  assert.deepEqual(Object.fromEntries(out.reply.names.map((n, i) => [n, out.reply.kind === 'sources' ? out.reply.places[i] : ''])), Object.fromEntries(expected));
});

test('the functions table and the sandwich of the whole recording take the running sums: no sample columns for them, the same figures as from every sample; a window still reads the samples', () => {
  const { full, core, rec } = liveMinutes();
  const expected = new ProfileAnalysis(full);
  for (const metric of ['cpu', 'wall'] as const) {
    const q = { metric, threadIds: null, fold: DEFAULT_FOLD };
    const out = core.handle({ kind: 'functions', requestId: 6, query: q });
    assert.ok(out !== null && out.reply.kind === 'functions');
    const want = expected.functions(q);
    assert.ok(want.name.length >= 6, `${want.name.length} functions`);
    assert.deepEqual(out.reply.table, want);
    const name = want.name[0];
    const sw = core.handle({ kind: 'sandwich', requestId: 7, query: q, name });
    assert.ok(sw !== null && sw.reply.kind === 'sandwich');
    assert.deepEqual(sw.reply.sandwich, expected.sandwich(q, name));
  }
  assert.equal(rec.keepsSamples, false, 'the whole recording\'s tables needed no sample columns');
  const window = { metric: 'wall' as const, threadIds: null, fold: DEFAULT_FOLD, fromMs: 61_000, toMs: 125_500 };
  const out = core.handle({ kind: 'functions', requestId: 8, query: window });
  assert.ok(out !== null && out.reply.kind === 'functions');
  assert.deepEqual(out.reply.table, expected.functions(window));
  assert.equal(rec.keepsSamples, true, 'a window reads the samples');
});

test('a thread query first, on a stream that arrives in two parts: the second part is kept as it comes, the sums stay equal', () => {
  const bytes = minutesStream();
  const split = Math.floor(bytes.length / 2);
  const core = new ProfileWorkerCore();
  for (let at = 0; at < split; at += 1000) core.handle({ kind: 'chunk', offset: at, bytes: bytes.slice(at, Math.min(split, at + 1000)) });
  const byThread: FlameQuery = { ...query, metric: 'wall', groupByThread: true };
  const first = core.handle({ kind: 'flame', requestId: 1, query: byThread });
  assert.ok(first !== null && first.reply.kind === 'flame');
  for (let at = split; at < bytes.length; at += 1000) core.handle({ kind: 'chunk', offset: at, bytes: bytes.slice(at, at + 1000) });
  const full = recordingFromStream([bytes]);
  for (const q of [byThread, query, { ...query, fromMs: 30_000, toMs: 150_000 }]) {
    const out = core.handle({ kind: 'flame', requestId: 2, query: q });
    assert.ok(out !== null && out.reply.kind === 'flame');
    assert.equal(flatTreeToCollapsed(out.reply.tree), flatTreeToCollapsed(buildFlameTree(full, q)));
    assert.equal(out.reply.tree.sampleCount, buildFlameTree(full, q).sampleCount);
  }
});

test('async stacks: the summary says the recording has them, the flame graph splices them when asked and stays physical otherwise', async () => {
  const { asyncFixtureStream } = await import('../../../structs/profile/async-fixture-stream.test-support.js');
  const core = new ProfileWorkerCore();
  send(core, asyncFixtureStream(), 64);
  const sum = core.handle({ kind: 'summary', requestId: 1 });
  assert.ok(sum !== null && sum.reply.kind === 'summary');
  assert.equal(sum.reply.summary.hasAsync, true);
  const tree = (asyncStacks: boolean): string => {
    const r = core.handle({ kind: 'flame', requestId: 2, query: { ...query, asyncStacks } });
    assert.ok(r !== null && r.reply.kind === 'flame');
    return flatTreeToCollapsed(r.reply.tree);
  };
  assert.equal(tree(true), [
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 1000',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Other.Spin 400',
    '[await] Demo.Api.Outer;[await] Demo.Db.Middle;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 100',
    '',
  ].join('\n'));
  assert.equal(tree(false), [
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 1100',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Other.Spin 400',
    '',
  ].join('\n'));
  // Folded to the program's own code: the [await] frames are Demo.dll's (their state machines'), so they stay.
  const folded = core.handle({ kind: 'flame', requestId: 3, query: { ...query, asyncStacks: true, fold: { ...DEFAULT_FOLD, myCode: true } } });
  assert.ok(folded !== null && folded.reply.kind === 'flame');
  assert.match(flatTreeToCollapsed(folded.reply.tree), /^\[await\] Demo\.Api\.Outer;\[await\] Demo\.Db\.Middle;Demo\.Db\+<Inner>d__2\.MoveNext;Demo\.Db\.Hot 100$/m);
});

test('a recording without async data answers an async query with its physical stacks and says it has none', () => {
  const core = new ProfileWorkerCore();
  send(core, streamFromCollapsed('t;A;B 10'));
  const sum = core.handle({ kind: 'summary', requestId: 1 });
  assert.ok(sum !== null && sum.reply.kind === 'summary' && sum.reply.summary.hasAsync === false);
  const r = core.handle({ kind: 'flame', requestId: 2, query: { ...query, asyncStacks: true } });
  assert.ok(r !== null && r.reply.kind === 'flame');
  assert.equal(flatTreeToCollapsed(r.reply.tree), 'A;B 10\n');
});

test("async stacks of a live recording: an [await] frame named before its MoveNext was sampled gets its type in the next tree", async () => {
  const { asyncLateMoveNextStreams } = await import('../../../structs/profile/async-fixture-stream.test-support.js');
  const [first, later] = asyncLateMoveNextStreams();
  const core = new ProfileWorkerCore();
  send(core, first, 64);
  const tree = (requestId: number): string => {
    const r = core.handle({ kind: 'flame', requestId, query: { ...query, metric: 'wall', asyncStacks: true } });
    assert.ok(r !== null && r.reply.kind === 'flame');
    return flatTreeToCollapsed(r.reply.tree);
  };
  assert.equal(tree(1), '[await] Client;[await] Handler;[suspended] 10000000\n[await] Task.WhenAll;[suspended] 10000000\n');
  const at = first.length;
  for (let o = 0; o < later.length; o += 64) core.handle({ kind: 'chunk', offset: at + o, bytes: later.slice(o, o + 64) });
  assert.equal(tree(2), '[await] Client;[await] Demo.Requests.Handler;[suspended] 10000000\n[await] Task.WhenAll;[suspended] 10000000\n');
});

test('a registered whole-recording view is answered by its name; a name not registered gets an error sentence, never a run', () => {
  const core = new ProfileWorkerCore();
  send(core, streamFromCollapsed('t;A 10'));
  const requests = core.handle({ kind: 'recording-view', requestId: 3, view: 'requests' });
  assert.ok(requests !== null && requests.reply.kind === 'recording-view');
  assert.equal(requests.reply.view, 'requests');
  // A recording of no server: no endpoints (the tab says so).
  assert.deepEqual((requests.reply.data as { rows: unknown[] }).rows, []);
  const pool = core.handle({ kind: 'recording-view', requestId: 4, view: 'pool' });
  assert.ok(pool !== null && pool.reply.kind === 'recording-view' && pool.reply.view === 'pool');
  const forged = { kind: 'recording-view', requestId: 5, view: 'constructor' } as unknown as Parameters<ProfileWorkerCore['handle']>[0];
  const refused = core.handle(forged);
  assert.ok(refused !== null && refused.reply.kind === 'error');
  assert.equal(refused.reply.requestId, 5);
  assert.match(refused.reply.message, /no view "constructor"/);
});
