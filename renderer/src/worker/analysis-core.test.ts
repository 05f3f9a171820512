import { test } from 'node:test';
import assert from 'node:assert/strict';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { FIXTURE_START_MONO, fixtureEncoder } from '../../../structs/profile/fixture-stream.test-support.js';
import { EventKind } from '../../../structs/wire/records.js';
import { flatTreeProblems, flatTreeToCollapsed } from '../../../structs/analysis/flat-tree-text.js';
import { DEFAULT_FOLD, NO_FOLD } from '../../../structs/analysis/fold-options.js';
import { ProfileAnalysis } from '../../../structs/analysis/profile-analysis.js';
import type { AnalysisQueryMessage } from './analysis-protocol.js';
import type { FlameQuery, WorkerReply } from './protocol.js';
import { ProfileWorkerCore } from './worker-core.js';

const TEXT = `
  w1;libc.so.6!start_thread;[libcoreclr.so];[libcoreclr.so];App.Run;App.Hot 30 @1
  w1;libc.so.6!start_thread;[libcoreclr.so];[libcoreclr.so];App.Run;App.Cold 10 @2
  w2;libc.so.6!start_thread;[libcoreclr.so];App.Run;[libcoreclr.so];libc.so.6!futex_wait 0 @3 wall=50
  w2;libc.so.6!start_thread;[libcoreclr.so];App.Run;App.Hot 5 @4
`;

function fed(text: string): ProfileWorkerCore {
  const core = new ProfileWorkerCore();
  const bytes = streamFromCollapsed(text);
  for (let at = 0; at < bytes.length; at += 64) core.handle({ kind: 'chunk', offset: at, bytes: bytes.slice(at, at + 64) });
  return core;
}

function reply(core: ProfileWorkerCore, request: Parameters<ProfileWorkerCore['handle']>[0]): WorkerReply {
  const out = core.handle(request);
  assert.ok(out !== null);
  if (out.reply.kind === 'error') assert.fail(out.reply.message);
  return out.reply;
}

const flame: FlameQuery = { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false };
const query: AnalysisQueryMessage = { metric: 'cpu', threadIds: null, fold: DEFAULT_FOLD };

test('the flame graph and parallel stacks fold as the query asks, also grouped by thread', () => {
  const core = fed(TEXT);
  const raw = reply(core, { kind: 'flame', requestId: 1, query: flame });
  assert.ok(raw.kind === 'flame');
  assert.match(flatTreeToCollapsed(raw.tree), /^libc\.so\.6!start_thread;\[libcoreclr\.so\];\[libcoreclr\.so\];App\.Run;App\.Cold 10$/m);
  const folded = reply(core, { kind: 'flame', requestId: 2, query: { ...flame, fold: DEFAULT_FOLD } });
  assert.ok(folded.kind === 'flame');
  assert.deepEqual(flatTreeProblems(folded.tree), []);
  assert.equal(flatTreeToCollapsed(folded.tree), '[runtime];App.Run;App.Cold 10\n[runtime];App.Run;App.Hot 35\n');
  const byThread = reply(core, { kind: 'flame', requestId: 3, query: { ...flame, metric: 'wall', groupByThread: true, fold: DEFAULT_FOLD } });
  assert.ok(byThread.kind === 'flame');
  assert.equal(flatTreeToCollapsed(byThread.tree), 'w1;[runtime];App.Run;App.Cold 10\nw1;[runtime];App.Run;App.Hot 30\nw2;[runtime];App.Run;App.Hot 5\nw2;[runtime];App.Run;[runtime] 50\n');
  const par = reply(core, { kind: 'parallel', requestId: 4, query: { mode: 'current', fold: DEFAULT_FOLD } });
  assert.ok(par.kind === 'parallel');
  assert.equal(flatTreeToCollapsed(par.tree), '[runtime];App.Run;App.Cold 1\n[runtime];App.Run;App.Hot 1\n');
  assert.deepEqual(par.tree.threads[1], [1, 2], 'both threads pass through the one [runtime] root');
});

test('functions, sandwich and timeline replies are structs/analysis\'s answers, with their arrays transferred', () => {
  const core = fed(TEXT);
  const expected = new ProfileAnalysis(recordingFromStream([streamFromCollapsed(TEXT)]));
  const out = core.handle({ kind: 'functions', requestId: 5, query });
  assert.ok(out !== null && out.reply.kind === 'functions');
  assert.deepEqual(out.reply.table, expected.functions({ metric: 'cpu', fold: DEFAULT_FOLD }));
  assert.equal(out.transfer.length, 5);
  const s = reply(core, { kind: 'sandwich', requestId: 6, query, name: 'App.Run' });
  assert.ok(s.kind === 'sandwich' && s.sandwich !== null);
  assert.equal(flatTreeToCollapsed(s.sandwich.callees), 'App.Run;App.Cold 10\nApp.Run;App.Hot 35\n');
  const t = reply(core, { kind: 'timeline', requestId: 7, query: { buckets: 10 } });
  assert.ok(t.kind === 'timeline');
  assert.deepEqual(t.timeline.threads.map((x) => x.name), ['w1', 'w2']);
  const near = reply(core, { kind: 'stack-near', requestId: 8, threadId: 2, atMs: 3.2, fold: DEFAULT_FOLD });
  assert.ok(near.kind === 'stack-near');
  assert.deepEqual(near.stack?.frames, ['[runtime]', 'App.Run', '[runtime]']);
});

test('diff against a baseline recording fed beside the session, and between two windows of the session', () => {
  const core = fed(TEXT);
  const missing = core.handle({ kind: 'diff', requestId: 9, before: { source: 'baseline', query }, after: { source: 'current', query }, normalize: 'share' });
  assert.deepEqual(missing?.reply, { kind: 'error', requestId: 9, message: 'No baseline recording is loaded to compare with.' });
  const base = streamFromCollapsed('w1;libc.so.6!start_thread;[libcoreclr.so];App.Run;App.Hot 10\nw1;libc.so.6!start_thread;[libcoreclr.so];App.Run;App.Cold 30');
  assert.equal(core.handle({ kind: 'baseline-chunk', offset: 0, bytes: base }), null);
  const summary = reply(core, { kind: 'baseline-summary', requestId: 10 });
  assert.ok(summary.kind === 'baseline-summary');
  assert.equal(summary.summary.sampleCount, 2);
  const d = reply(core, { kind: 'diff', requestId: 11, before: { source: 'baseline', query }, after: { source: 'current', query }, normalize: 'share' });
  assert.ok(d.kind === 'diff');
  assert.deepEqual(d.functions.name.slice(0, 2), ['App.Cold', 'App.Hot'], 'equal changes of share (-52.8 and +52.8 points) go by name');
  assert.deepEqual([d.functions.beforeSelf[1], d.functions.afterSelf[1]], [10, 35]);
  const w = reply(core, { kind: 'diff', requestId: 12, before: { source: 'current', query: { ...query, toMs: 2.5 } }, after: { source: 'current', query: { ...query, fromMs: 2.5, fold: NO_FOLD } }, normalize: 'absolute' });
  assert.ok(w.kind === 'diff');
  assert.equal(w.tree.beforeTotal, 40);
  assert.equal(w.tree.afterTotal, 5);
  core.handle({ kind: 'baseline-reset' });
  const gone = core.handle({ kind: 'diff', requestId: 13, before: { source: 'baseline', query }, after: { source: 'current', query }, normalize: 'share' });
  assert.equal(gone?.reply.kind, 'error');
});

test('the worker answers the type and exceptions tables from the stream it was fed, for a window and threads', () => {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).string(1, 'System.Byte[]').string(2, 'System.ArgumentException');
  const at = FIXTURE_START_MONO + 1_000_000;
  enc.event({ kind: EventKind.Allocation, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 10 });
  enc.event({ kind: EventKind.Allocation, mono: at + 5_000_000, threadId: 3, stackId: 90, labelId: 1, value1: 300, value2: 3 });
  enc.event({ kind: EventKind.Exception, mono: at, threadId: 3, stackId: 90, labelId: 2, value1: 1 });
  const bytes = enc.bytes().slice();
  const core = new ProfileWorkerCore();
  for (let p = 0; p < bytes.length; p += 64) core.handle({ kind: 'chunk', offset: p, bytes: bytes.slice(p, p + 64) });
  const all = reply(core, { kind: 'event-tables', requestId: 1, query: { threadIds: null } });
  assert.ok(all.kind === 'event-tables');
  assert.deepEqual(all.types.rows.map((r) => [r.type, r.bytes, r.objects]), [['System.Byte[]', 1300, 13]]);
  assert.deepEqual(all.exceptions.rows.map((r) => [r.type, r.count, r.methods[0]?.name]), [['System.ArgumentException', 1, 'App.Worker.Hot']]);
  const some = reply(core, { kind: 'event-tables', requestId: 2, query: { threadIds: [1], toMs: 3 } });
  assert.ok(some.kind === 'event-tables');
  assert.deepEqual(some.types.rows.map((r) => [r.type, r.bytes]), [['System.Byte[]', 1000]]);
  assert.deepEqual(some.exceptions.rows, []);
});
