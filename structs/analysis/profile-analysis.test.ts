import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { streamFromCollapsed } from '../formats/collapsed/collapsed-stream.js';
import { flatTreeProblems, flatTreeToCollapsed } from './flat-tree-text.js';
import { DEFAULT_FOLD, NO_FOLD } from './fold-options.js';
import type { FunctionsTable } from './functions-table.js';
import { ProfileAnalysis, diffAnalyses, type AnalysisQuery } from './profile-analysis.js';
import { callTree } from './call-trees.js';

const lines = (...l: string[]): string => l.map((x) => `${x}\n`).join('');

function analysis(text: string): ProfileAnalysis {
  return new ProfileAnalysis(recordingFromStream([streamFromCollapsed(text)]));
}

function rows(t: FunctionsTable): string[] {
  return t.name.map((name, i) => `${name} self=${t.self[i]}/${t.selfSamples[i]} total=${t.total[i]}/${t.totalSamples[i]}`);
}

const cpu: AnalysisQuery = { metric: 'cpu', fold: NO_FOLD };

const PROFILE = `
  main;Main;Work;Hot 10 @1 wall=12
  main;Main;Work;Hot 20 @2 wall=25
  main;Main;Work;Cold 5 @3
  worker;Main;Work;Hot 7 @4
  worker;Main;Recurse;Recurse;Recurse 4 @5
  worker;Start;libc.so.6!futex_wait 0 @6 wall=100
  main;Main 2 @7
`;

test('functions table: self from the leaf, total once per stack however deep the recursion, as values and sample counts', () => {
  const t = new ProfileAnalysis(recordingFromStream([streamFromCollapsed(PROFILE)])).functions(cpu);
  assert.deepEqual(rows(t), [
    'Hot self=37/3 total=37/3',
    'Cold self=5/1 total=5/1',
    'Recurse self=4/1 total=4/1',
    'Main self=2/1 total=48/6',
    'Work self=0/0 total=42/4',
  ]);
  assert.equal(t.totalValue, 48);
  assert.equal(t.sampleCount, 6, 'the wall-only sample is not in a CPU table');
  assert.deepEqual(Array.from(t.kind), [0, 0, 0, 0, 0]);
});

test('the same table over wall time, a time window and one thread', () => {
  const a = analysis(PROFILE);
  // Wall time: the thread waiting in futex_wait is the self of Start, the method that waited (wait-self.ts).
  const wall = rows(a.functions({ metric: 'wall', fold: NO_FOLD }));
  assert.deepEqual(wall.slice(0, 2), ['Start self=100/1 total=100/1', 'Hot self=44/3 total=44/3']);
  assert.ok(wall.includes('libc.so.6!futex_wait self=0/0 total=100/1'), wall.join('\n'));
  assert.deepEqual(rows(a.functions({ metric: 'cpu', fold: NO_FOLD, fromMs: 2, toMs: 4 })), ['Hot self=20/1 total=20/1', 'Cold self=5/1 total=5/1', 'Main self=0/0 total=25/2', 'Work self=0/0 total=25/2']);
  assert.deepEqual(rows(a.functions({ metric: 'samples', fold: NO_FOLD, threadIds: [2] })), [
    'Hot self=1/1 total=1/1', 'Recurse self=1/1 total=1/1', 'libc.so.6!futex_wait self=1/1 total=1/1',
    'Main self=0/0 total=2/2', 'Start self=0/0 total=1/1', 'Work self=0/0 total=1/1',
  ]);
});

test('wall time: a wait goes to the program\'s own method that waited, else the innermost managed frame; running code keeps its leaf', () => {
  const a = analysis(lines(
    'sleeper;App.Main;App.Doze;System.Threading.Thread.Sleep|System.Private.CoreLib.dll;libc.so.6!nanosleep 0 @1 wall=50',
    'pool;System.Threading.WorkerLoop|System.Private.CoreLib.dll;System.Threading.Semaphore.Wait|System.Private.CoreLib.dll;libc.so.6!futex_wait 0 @2 wall=30',
    'native;libc.so.6!epoll_wait 0 @3 wall=20',
    'main;App.Main;App.Sum;System.Linq.Enumerable.Sum|System.Linq.dll 1 @4 wall=10',
  ));
  const self = (metric: 'wall' | 'cpu'): Map<string, number> => {
    const t = a.functions({ metric, fold: NO_FOLD });
    return new Map(t.name.map((n, i) => [n, t.self[i]] as [string, number]).filter(([, v]) => v > 0));
  };
  assert.deepEqual(self('wall'), new Map([['App.Doze', 50], ['System.Threading.Semaphore.Wait', 30], ['libc.so.6!epoll_wait', 20], ['System.Linq.Enumerable.Sum', 10]]));
  assert.deepEqual(self('cpu'), new Map([['System.Linq.Enumerable.Sum', 1]]), 'CPU self stays the leaf');
  // With the runtime folded (the summary's and report's default) the same.
  const folded = a.functions({ metric: 'wall', fold: DEFAULT_FOLD });
  assert.equal(folded.name[0], 'App.Doze');
  assert.equal(folded.self[0], 50);
});

test('sandwich: callers up to the entries and callees down to the leaves, both rooted at the function with its total', () => {
  const a = analysis(`
    t;Main;A;Shared;Leaf 3
    t;Main;B;Shared;Leaf 5
    t;Main;B;Shared 2
    t;Main;Shared;Shared;Other 1
    t;Main;C 9
  `);
  const s = a.sandwich(cpu, 'Shared');
  assert.ok(s !== null);
  assert.deepEqual([s.self, s.total, s.totalValue], [2, 11, 20]);
  assert.deepEqual(flatTreeProblems(s.callers), []);
  assert.deepEqual(flatTreeProblems(s.callees), []);
  assert.equal(flatTreeToCollapsed(s.callers), lines('Shared;A;Main 3', 'Shared;B;Main 7', 'Shared;Main 1'));
  assert.equal(flatTreeToCollapsed(s.callees), lines('Shared 2', 'Shared;Leaf 8', 'Shared;Shared;Other 1'));
  assert.equal(s.callers.totalValue, 11);
  assert.equal(s.callees.totalValue, 11);
  assert.equal(a.sandwich(cpu, 'Nowhere'), null);
});

test('folding applies to every view: the table and the sandwich see [runtime], not the runtime\'s frames', () => {
  const a = analysis(`
    t;libc.so.6!start_thread;[libcoreclr.so];App.Run;[libcoreclr.so];libc.so.6!memset 4
    t;libc.so.6!start_thread;[libcoreclr.so];App.Run;App.Hot 6
  `);
  const t = a.functions({ metric: 'cpu', fold: DEFAULT_FOLD });
  assert.deepEqual(rows(t), ['App.Hot self=6/1 total=6/1', '[runtime] self=4/1 total=10/2', 'App.Run self=0/0 total=10/2']);
  const s = a.sandwich({ metric: 'cpu', fold: DEFAULT_FOLD }, 'App.Run');
  assert.equal(flatTreeToCollapsed(s!.callers), lines('App.Run;[runtime] 10'));
  assert.equal(flatTreeToCollapsed(s!.callees), lines('App.Run;App.Hot 6', 'App.Run;[runtime] 4'));
});

test('diff of two recordings: per-function before/after, and a tree whose width is the mean of both sides\' shares', () => {
  const before = analysis(`
    t;Main;Heavy 75
    t;Main;Light 25
  `);
  const after = analysis(`
    t;Main;Heavy 100
    t;Main;Light 100
    t;Main;New 0 wall=5
  `);
  const d = diffAnalyses(before, cpu, after, cpu, 'share');
  const f = d.functions;
  assert.deepEqual(f.name, ['Heavy', 'Light', 'Main']);
  assert.deepEqual([f.beforeValue, f.afterValue], [100, 200]);
  assert.deepEqual(Array.from(f.beforeSelf), [75, 25, 0]);
  assert.deepEqual(Array.from(f.afterSelf), [100, 100, 0]);
  assert.deepEqual(Array.from(f.afterTotal), [100, 100, 200]);
  const t = d.tree;
  assert.deepEqual(flatTreeProblems(t), []);
  const byName = (name: string): number => Array.from({ length: t.nodeCount }, (_, i) => i).find((i) => t.labels[t.label[i]] === name)!;
  const heavy = byName('Heavy');
  const light = byName('Light');
  assert.equal(t.total[heavy], (75 + 50) / 2, 'width: mean of 75% and 50%');
  assert.equal(t.delta[heavy], -25);
  assert.equal(t.delta[light], 25);
  assert.equal(t.delta[byName('Main')], 0);
  assert.deepEqual([t.before[heavy], t.after[heavy], t.beforeSelf[light], t.afterSelf[light]], [75, 100, 25, 100]);
  const abs = diffAnalyses(before, cpu, after, cpu, 'absolute').tree;
  assert.equal(abs.delta[byName('Light')], 75);
  assert.equal(abs.total[0], 150);
});

test('diff across spellings: a nettrace-style generic name and clrscope\'s are one function', () => {
  const before = analysis('t;Main;System.Collections.Generic.HashSet`1[System.__Canon].AddIfNotPresent|System.Private.CoreLib.dll 10');
  const after = analysis('t;Main;System.Collections.Generic.HashSet<System.__Canon>.AddIfNotPresent|System.Private.CoreLib.dll 30');
  const d = diffAnalyses(before, cpu, after, cpu, 'absolute');
  assert.deepEqual(d.functions.name, ['System.Collections.Generic.HashSet<System.__Canon>.AddIfNotPresent', 'Main']);
  assert.equal(flatTreeToCollapsed(d.tree), lines('Main;System.Collections.Generic.HashSet<System.__Canon>.AddIfNotPresent 20'));
});

test('diff of two windows of one recording', () => {
  const a = analysis(`
    t;Main;Early 10 @1
    t;Main;Early 10 @2
    t;Main;Late 10 @3
    t;Main;Late 30 @4
  `);
  const d = diffAnalyses(a, { ...cpu, toMs: 2.5 }, a, { ...cpu, fromMs: 2.5 }, 'share');
  assert.deepEqual(d.functions.name, ['Early', 'Late', 'Main']);
  assert.deepEqual(Array.from(d.functions.beforeSelf), [20, 0, 0]);
  assert.deepEqual(Array.from(d.functions.afterSelf), [0, 40, 0]);
});

test('the tree filled into the recording\'s kept shape equals the tree merged from the weighted stacks alone', () => {
  const lines: string[] = [];
  // Stacks that share prefixes at many depths, in several threads and times.
  for (let i = 0; i < 60; i++) {
    const frames = ['Main', `A${i % 3}`, `B${i % 5}`, `C${i % 7}`].slice(0, 2 + (i % 3));
    lines.push(`t${i % 4};${frames.join(';')} ${1 + (i % 9)} @${i + 1}`);
  }
  const a = analysis(lines.join('\n'));
  const { stacks, weights } = a.weigh({ metric: 'cpu', fold: NO_FOLD, fromMs: 10, toMs: 40 });
  const merged = callTree(stacks, weights, false);
  const projected = a.tree({ metric: 'cpu', fold: NO_FOLD, fromMs: 10, toMs: 40 }, false);
  assert.deepEqual(flatTreeProblems(projected), []);
  assert.equal(flatTreeToCollapsed(projected), flatTreeToCollapsed(merged));
  assert.deepEqual(Array.from(projected.total), Array.from(merged.total));
  assert.deepEqual(Array.from(projected.depth), Array.from(merged.depth));
  assert.equal(projected.sampleCount, merged.sampleCount);
  // The same through a diff of two windows (kept shape) and of two recordings (merged side by side).
  const windows = diffAnalyses(a, { metric: 'cpu', fold: NO_FOLD, toMs: 30 }, a, { metric: 'cpu', fold: NO_FOLD, fromMs: 30 }, 'absolute').tree;
  const copy = analysis(lines.join('\n'));
  const twoFiles = diffAnalyses(copy, { metric: 'cpu', fold: NO_FOLD, toMs: 30 }, a, { metric: 'cpu', fold: NO_FOLD, fromMs: 30 }, 'absolute').tree;
  assert.deepEqual(flatTreeProblems(windows), []);
  assert.equal(flatTreeToCollapsed(windows), flatTreeToCollapsed(twoFiles));
  assert.deepEqual(Array.from(windows.delta), Array.from(twoFiles.delta));
  assert.deepEqual(Array.from(windows.before), Array.from(twoFiles.before));
});
