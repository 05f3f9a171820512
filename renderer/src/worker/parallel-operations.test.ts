import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncSource } from '../../../structs/analysis/async-source.js';
import { flatTreeProblems } from '../../../structs/analysis/flat-tree-text.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { buildOperationsTree, isAsyncOperationsThread } from './parallel-operations.js';
import type { ParallelQuery, ParallelTree } from './protocol.js';
import { ProfileWorkerCore } from './worker-core.js';

const MS = 1_000_000;

// Two pool threads and the profiler's [async operations] thread, ticks 1 ms apart from 2 ms:
//   tick 2 ms: pool A runs Inner's continuation (Inner <- Middle <- Outer); three requests'
//     Service (<- Handler) are suspended awaiting a delay; Main is suspended on something unnamed;
//   tick 3 ms: pool A runs outside any task; two of the requests are still suspended, Main was
//     resumed during the tick (its sample has no count);
//   pool B only waits, outside any task.
// `late` adds a pool B sample at 10 ms and no tick of operations after 3 ms: nothing suspended now.
function stream(late = false): Uint8Array {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 9, flags: 0x13, mono: 0, unixNs: 1_700_000_000_000_000_000n, intervalNs: MS, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: '0.4.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 0x21, mono: 0, name: 'pool A' })
    .thread({ threadId: 2, osTid: 12, clrThreadId: 0x22, mono: 0, name: 'pool B' })
    .thread({ threadId: 3, osTid: 0, clrThreadId: 0, mono: 0, name: '[async operations]' });
  const fns = ['System.Threading.ThreadPoolWorkQueue.Dispatch', 'Demo.Db+<Inner>d__2.MoveNext', 'Demo.Db.Hot', 'Demo.Other.Spin', 'System.Threading.WaitHandle.Wait', '[suspended]', '[awaiting Task.Delay]'];
  fns.forEach((name, i) => {
    enc.function({ functionId: i + 1, kind: name.startsWith('[') ? 2 : 0, name, module: name.startsWith('[') ? '' : 'Demo.dll', file: '' });
    enc.frame({ frameId: i + 1, functionId: i + 1, offsetKind: 0, offset: 0 });
  });
  const [dispatch, inner, hot, spin, wait, suspended, delay] = [1, 2, 3, 4, 5, 6, 7];
  enc.string(1, '<Inner>d__2').string(2, '<Middle>d__1').string(3, '<Outer>d__0').string(4, '<Service>d__4').string(5, '<Handler>d__3').string(6, '<Main>d__0')
    .task({ taskId: 3, awaiterId: 0, nameId: 3 }).task({ taskId: 5, awaiterId: 3, nameId: 2 }).task({ taskId: 7, awaiterId: 5, nameId: 1 })
    .task({ taskId: 20, awaiterId: 0, nameId: 5 }).task({ taskId: 21, awaiterId: 20, nameId: 4 }).task({ taskId: 30, awaiterId: 0, nameId: 6 })
    .stack(1, 0, [hot, inner, dispatch]).stack(2, 0, [spin, dispatch]).stack(3, 0, [wait, dispatch])
    .stack(4, 0, [delay, suspended]).stack(5, 0, [suspended])
    .stackSample(2 * MS, 1, 3, MS, MS, 1, 7)
    .stackSample(2 * MS, 2, 2, 0, MS, 3)
    .stackSample(2 * MS, 3, 2, 0, 90 * MS, 4, 21, 3)
    .stackSample(2 * MS, 3, 2, 0, MS, 5, 30, 1)
    .stackSample(3 * MS, 1, 3, MS, MS, 2)
    .stackSample(3 * MS, 2, 2, 0, MS, 3)
    .stackSample(3 * MS, 3, 2, 0, 2 * MS, 4, 21, 2)
    .stackSample(3 * MS, 3, 2, 0, MS / 2, 5, 30);
  if (late) enc.stackSample(10 * MS, 2, 2, 0, 7 * MS, 3);
  return enc.end({ mono: 11 * MS, reason: 2 }).bytes().slice();
}

function operations(rec: Recording, query: ParallelQuery): ParallelTree {
  const source = new AsyncSource(rec);
  const tree = buildOperationsTree(rec, source, query, new LabelTable(source), null);
  assert.deepEqual(flatTreeProblems(tree), []);
  assert.equal(tree.by, 'operations');
  return tree;
}

/** "label [threads] total" per node in preorder, indented by depth. */
function outline(tree: ParallelTree): string[] {
  return Array.from({ length: tree.nodeCount }, (_, i) =>
    `${'  '.repeat(tree.depth[i])}${tree.labels[tree.label[i]]} [${tree.threads[i].join(',')}] ${tree.total[i]}`);
}

test('current: the latest tick\'s suspended operations, each counted where it sits, and what each live thread runs', () => {
  const rec = recordingFromStream([stream()]);
  assert.deepEqual(outline(operations(rec, { mode: 'current', by: 'operations' })), [
    'all [] 2',
    '  [await] Handler [] 2',
    '    [await] Service [] 2',
    '      [suspended] [] 2',
    '        [awaiting Task.Delay] [] 2',
  ]);
});

test('current at an earlier time: pool A running Inner under its awaiters, the suspended operations of that tick beside it', () => {
  const rec = recordingFromStream([stream()]);
  assert.deepEqual(outline(operations(rec, { mode: 'current', by: 'operations', toMs: 2.5 })), [
    'all [1] 5',
    '  [await] Handler [] 3',
    '    [await] Service [] 3',
    '      [suspended] [] 3',
    '        [awaiting Task.Delay] [] 3',
    '  [await] Main [] 1',
    '    [suspended] [] 1',
    '  [await] Outer [1] 1',
    '    [await] Middle [1] 1',
    '      Demo.Db+<Inner>d__2.MoveNext [1] 1',
    '        Demo.Db.Hot [1] 1',
  ]);
});

test('current: a tick of operations older than three periods before the newest sample means none is suspended now', () => {
  const rec = recordingFromStream([stream(true)]);
  assert.deepEqual(outline(operations(rec, { mode: 'current', by: 'operations' })), ['all [] 0']);
});

test('window: every tick\'s counts and every sample a thread took in an operation', () => {
  const rec = recordingFromStream([stream()]);
  assert.deepEqual(outline(operations(rec, { mode: 'window', by: 'operations' })), outline(operations(rec, { mode: 'window', by: 'operations', fromMs: 0, toMs: 5 })));
  const tree = operations(rec, { mode: 'window', by: 'operations' });
  const at = (label: string): number => tree.total[Array.from(tree.label).findIndex((l) => tree.labels[l] === label)];
  assert.equal(tree.total[0], 3 + 2 + 1 + 1);
  assert.equal(at('[awaiting Task.Delay]'), 5);
  assert.equal(at('Demo.Db.Hot'), 1);
  const late = operations(rec, { mode: 'window', by: 'operations', fromMs: 2.5 });
  assert.equal(late.total[0], 2);
});

test('the [async operations] thread is known by its name, also with a process prefix (a merged recording)', () => {
  assert.equal(isAsyncOperationsThread('[async operations]'), true);
  assert.equal(isAsyncOperationsThread('[4242 dotnet] [async operations]'), true);
  assert.equal(isAsyncOperationsThread('async operations'), false);
});

test('the worker answers by: operations for a recording with async stacks, and threads for one without', () => {
  const core = new ProfileWorkerCore();
  const bytes = stream();
  core.handle({ kind: 'chunk', offset: 0, bytes });
  const ops = core.handle({ kind: 'parallel', requestId: 1, query: { mode: 'current', by: 'operations' } });
  assert.ok(ops !== null && ops.reply.kind === 'parallel');
  assert.equal(ops.reply.tree.by, 'operations');
  assert.equal(ops.reply.tree.total[0], 2);
  const threads = core.handle({ kind: 'parallel', requestId: 2, query: { mode: 'current' } });
  assert.ok(threads !== null && threads.reply.kind === 'parallel');
  assert.equal(threads.reply.tree.by, 'threads');
  // A recording without async stacks has no operations: its threads are answered.
  const plain = new ProfileWorkerCore();
  const enc = new WireEncoder().preamble()
    .hello({ pid: 9, flags: 3, mono: 0, unixNs: 1n, intervalNs: MS, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: '0.4.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 't' })
    .function({ functionId: 1, kind: 0, name: 'A', module: '', file: '' }).frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1]).stackSample(MS, 1, 1, MS, 0, 1).end({ mono: 2 * MS, reason: 0 });
  plain.handle({ kind: 'chunk', offset: 0, bytes: enc.bytes().slice() });
  const reply = plain.handle({ kind: 'parallel', requestId: 3, query: { mode: 'current', by: 'operations' } });
  assert.ok(reply !== null && reply.reply.kind === 'parallel');
  assert.equal(reply.reply.tree.by, 'threads');
});
