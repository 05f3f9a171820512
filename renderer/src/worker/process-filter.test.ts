import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flatTreeToCollapsed } from '../../../structs/analysis/flat-tree-text.js';
import { THREAD_KIND } from '../../../structs/analysis/label-table.js';
import { RecordingFileReader } from '../../../structs/formats/clrscope-file/open-recording.js';
import { ProcessTreeStream } from '../../../structs/formats/clrscope-file/process-tree-stream.js';
import { streamFromCollapsed } from '../../../structs/formats/collapsed/collapsed-stream.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { PREAMBLE_SIZE } from '../../../structs/wire/records.js';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';
import { buildFlameTree } from './flame-tree.js';
import type { FlameQuery, FlatTree, ParallelQuery, RecordingSummary } from './protocol.js';
import { ProfileWorkerCore } from './worker-core.js';

const PARENT = 100;
const ALPHA = 200;
const BETA = 300;

/** A collapsed-text stream as process `pid` would send it (HELLO's pid is the process's). */
function processStream(pid: number, text: string): Uint8Array {
  const bytes = streamFromCollapsed(text, { end: true });
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(PREAMBLE_SIZE + 5, pid, true);
  return bytes;
}

const STREAMS: [number, string][] = [
  [PARENT, 'main;App.Run;App.ParentHot 30\nworker;App.Run;App.Shared 5'],
  [ALPHA, 'main;Child.Main;Child.AlphaHot 20'],
  [BETA, 'main;Child.Main;Child.BetaHot 10\nmain;App.Run;App.Shared 2'],
];

/** The three processes' streams merged as the workstation merges them live, in 7-byte pieces taken in turn. */
function treeStream(): Uint8Array {
  const tree = new ProcessTreeStream({ nameOf: () => 'dotnet' });
  const streams = STREAMS.map(([pid, text]) => ({ key: { pid }, bytes: processStream(pid, text) }));
  const out: number[] = [];
  for (let at = 0; streams.some((s) => at < s.bytes.length); at += 7) {
    for (const s of streams) if (at < s.bytes.length) out.push(...tree.push(s.key, s.bytes.subarray(at, at + 7)));
  }
  out.push(...tree.finish(undefined));
  return Uint8Array.from(out);
}

function feed(core: ProfileWorkerCore, bytes: Uint8Array, chunk = 29): void {
  for (let at = 0; at < bytes.length; at += chunk) assert.equal(core.handle({ kind: 'chunk', offset: at, bytes: bytes.slice(at, at + chunk) }), null);
}

function flame(core: ProfileWorkerCore, query: Partial<FlameQuery>): FlatTree {
  const out = core.handle({ kind: 'flame', requestId: 1, query: { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false, ...query } });
  assert.ok(out !== null && out.reply.kind === 'flame', JSON.stringify(out?.reply));
  return out.reply.tree;
}

const lines = (tree: FlatTree): string[] => flatTreeToCollapsed(tree).trimEnd().split('\n').filter((l) => l !== '').sort();

function loaded(): ProfileWorkerCore {
  const core = new ProfileWorkerCore();
  feed(core, treeStream());
  return core;
}

test('by process: one root per process ("[pid name]", kind 3), each over its own processes\' stacks only', () => {
  const tree = flame(loaded(), { groupByProcess: true });
  assert.deepEqual(lines(tree), [
    '[100 dotnet];App.Run;App.ParentHot 30',
    '[100 dotnet];App.Run;App.Shared 5',
    '[200 dotnet];Child.Main;Child.AlphaHot 20',
    '[300 dotnet];App.Run;App.Shared 2',
    '[300 dotnet];Child.Main;Child.BetaHot 10',
  ]);
  for (let i = 1; i < tree.nodeCount; i++) if (tree.depth[i] === 1) assert.equal(tree.labelKind[tree.label[i]], THREAD_KIND);
  // Without it, a function both processes ran is one frame: the processes merge by method.
  assert.ok(lines(flame(loaded(), {})).includes('App.Run;App.Shared 7'));
});

test('the process filter narrows every tree to the chosen processes\' threads, with the thread filter and a time window', () => {
  const core = loaded();
  assert.deepEqual(lines(flame(core, { processIds: [ALPHA] })), ['Child.Main;Child.AlphaHot 20']);
  assert.deepEqual(lines(flame(core, { processIds: [PARENT, BETA], groupByProcess: true })), [
    '[100 dotnet];App.Run;App.ParentHot 30',
    '[100 dotnet];App.Run;App.Shared 5',
    '[300 dotnet];App.Run;App.Shared 2',
    '[300 dotnet];Child.Main;Child.BetaHot 10',
  ]);
  assert.equal(flame(core, { processIds: [] }).totalValue, 0);
  // Both filters: the threads in both. The parent's "worker" thread only.
  const summary = core.handle({ kind: 'summary', requestId: 2 });
  assert.ok(summary !== null && summary.reply.kind === 'summary');
  const worker = summary.reply.summary.threads.find((t) => t.name === `[${PARENT} dotnet] worker`);
  assert.ok(worker !== undefined);
  const betaMain = summary.reply.summary.threads.find((t) => t.name === `[${BETA} dotnet] main`);
  assert.ok(betaMain !== undefined);
  assert.deepEqual(lines(flame(core, { processIds: [PARENT], threadIds: [worker.id, betaMain.id] })), ['App.Run;App.Shared 5']);
  // A time window goes through the sample scan rather than the kept sums: the same trees.
  assert.deepEqual(lines(flame(core, { processIds: [BETA], fromMs: 0, groupByProcess: true })), ['[300 dotnet];App.Run;App.Shared 2', '[300 dotnet];Child.Main;Child.BetaHot 10']);
  assert.deepEqual(lines(flame(core, { processIds: [ALPHA], fromMs: 0, inverted: true })), ['Child.AlphaHot;Child.Main 20']);
});

test('the kept sums give the trees a full scan of the recording gives, for every grouping and filter', () => {
  const bytes = treeStream();
  const reader = new RecordingFileReader();
  reader.push(bytes);
  const full: Recording = reader.finish().recording;
  const core = new ProfileWorkerCore();
  // A live recording: part of the stream, a query, then the rest (threads of a process keep arriving).
  const half = Math.floor(bytes.length / 2);
  feed(core, bytes.subarray(0, half));
  flame(core, { groupByProcess: true, processIds: [ALPHA] });
  for (let at = half; at < bytes.length; at += 31) core.handle({ kind: 'chunk', offset: at, bytes: bytes.slice(at, at + 31) });
  for (const metric of ['cpu', 'wall'] as const) {
    for (const q of [{}, { groupByProcess: true }, { processIds: [ALPHA, BETA] }, { processIds: [PARENT], groupByProcess: true, inverted: true }, { groupByThread: true, processIds: [BETA] }]) {
      const query: FlameQuery = { metric, threadIds: null, inverted: false, groupByThread: false, ...q };
      assert.equal(flatTreeToCollapsed(flame(core, query)), flatTreeToCollapsed(buildFlameTree(full, query)), `${metric} ${JSON.stringify(q)}`);
    }
  }
});

test('the summary lists the processes in the order they connected, and each thread\'s process', () => {
  const out = loaded().handle({ kind: 'summary', requestId: 3 });
  assert.ok(out !== null && out.reply.kind === 'summary');
  const s: RecordingSummary = out.reply.summary;
  assert.deepEqual(s.processes, [
    { pid: PARENT, name: 'dotnet', label: '[100 dotnet]' },
    { pid: ALPHA, name: 'dotnet', label: '[200 dotnet]' },
    { pid: BETA, name: 'dotnet', label: '[300 dotnet]' },
  ]);
  for (const t of s.threads) assert.ok(t.pid !== null && t.name.startsWith(`[${t.pid} dotnet] `), `${t.name}: ${t.pid}`);
  assert.equal(s.pid, PARENT);
});

test('a one-process recording: no processes, and the process filter of its own pid keeps every thread', () => {
  const core = new ProfileWorkerCore();
  feed(core, streamFromCollapsed('main;A;B 10\nother;A;C 5'));
  const out = core.handle({ kind: 'summary', requestId: 4 });
  assert.ok(out !== null && out.reply.kind === 'summary');
  assert.deepEqual(out.reply.summary.processes, []);
  assert.ok(out.reply.summary.threads.every((t) => t.pid === null));
  assert.deepEqual(lines(flame(core, { processIds: [4242] })), ['A;B 10', 'A;C 5']);
});

test('the functions table takes the process filter too', () => {
  const out = loaded().handle({ kind: 'functions', requestId: 5, query: { metric: 'cpu', threadIds: null, processIds: [ALPHA], fold: DEFAULT_FOLD } });
  assert.ok(out !== null && out.reply.kind === 'functions');
  assert.deepEqual([...out.reply.table.name].sort(), ['Child.AlphaHot', 'Child.Main']);
});

test('parallel stacks take the process filter, current and over time', () => {
  const core = loaded();
  const parallel = (query: Partial<ParallelQuery>): string[] => {
    const out = core.handle({ kind: 'parallel', requestId: 6, query: { mode: 'window', ...query } });
    assert.ok(out !== null && out.reply.kind === 'parallel', JSON.stringify(out?.reply));
    return lines(out.reply.tree);
  };
  // Over time a node counts samples: one per line of the processes' streams.
  assert.deepEqual(parallel({ processIds: [BETA] }), ['App.Run;App.Shared 1', 'Child.Main;Child.BetaHot 1']);
  assert.deepEqual(parallel({ processIds: [PARENT, ALPHA] }), ['App.Run;App.ParentHot 1', 'App.Run;App.Shared 1', 'Child.Main;Child.AlphaHot 1']);
  assert.deepEqual(parallel({}), ['App.Run;App.ParentHot 1', 'App.Run;App.Shared 2', 'Child.Main;Child.AlphaHot 1', 'Child.Main;Child.BetaHot 1']);
  // Current stacks: each of the chosen processes' threads once, at its latest sample.
  assert.deepEqual(parallel({ mode: 'current', processIds: [ALPHA] }), ['Child.Main;Child.AlphaHot 1']);
  assert.deepEqual(parallel({ mode: 'current' }), ['App.Run;App.ParentHot 1', 'App.Run;App.Shared 2', 'Child.Main;Child.AlphaHot 1']);
});
