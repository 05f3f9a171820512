import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { streamFromCollapsed } from '../formats/collapsed/collapsed-stream.js';
import { flatTreeProblems, flatTreeToCollapsed } from './flat-tree-text.js';
import { DEFAULT_FOLD, NO_FOLD, parseFoldSpec, type FoldOptions } from './fold-options.js';
import { ProfileAnalysis } from './profile-analysis.js';

function folded(text: string, fold: FoldOptions): string {
  const analysis = new ProfileAnalysis(recordingFromStream([streamFromCollapsed(text)]));
  const tree = analysis.tree({ metric: 'cpu', fold }, false);
  assert.deepEqual(flatTreeProblems(tree), []);
  return flatTreeToCollapsed(tree);
}

const lines = (...l: string[]): string => l.map((x) => `${x}\n`).join('');

// A thread as the profiler records one: libc and the runtime's unnamed frames below the
// managed entry, runtime frames between managed ones, and a libc leaf.
const THREAD = `
  w;libc.so.6!__clone3;libc.so.6!start_thread;[libcoreclr.so];[libcoreclr.so];[libcoreclr.so];System.Threading.Thread.StartCallback|System.Private.CoreLib.dll;App.Worker.Run;App.Worker.Step;[libcoreclr.so];libc.so.6!__futex_abstimed_wait 10
  w;libc.so.6!__clone3;libc.so.6!start_thread;[libcoreclr.so];[libcoreclr.so];[libcoreclr.so];System.Threading.Thread.StartCallback|System.Private.CoreLib.dll;App.Worker.Run;App.Worker.Hot 30
  gc;libc.so.6!__clone3;libc.so.6!start_thread;[libcoreclr.so];libcoreclr.so!GCHeap::GarbageCollect 5
`;

test('no folding: the stacks as recorded', () => {
  assert.equal(folded(THREAD, NO_FOLD), lines(
    'libc.so.6!__clone3;libc.so.6!start_thread;[libcoreclr.so];[libcoreclr.so];[libcoreclr.so];System.Threading.Thread.StartCallback;App.Worker.Run;App.Worker.Hot 30',
    'libc.so.6!__clone3;libc.so.6!start_thread;[libcoreclr.so];[libcoreclr.so];[libcoreclr.so];System.Threading.Thread.StartCallback;App.Worker.Run;App.Worker.Step;[libcoreclr.so];libc.so.6!__futex_abstimed_wait 10',
    'libc.so.6!__clone3;libc.so.6!start_thread;[libcoreclr.so];libcoreclr.so!GCHeap::GarbageCollect 5',
  ));
});

test('default folding: each run of runtime and libc frames is one [runtime] frame', () => {
  assert.deepEqual(DEFAULT_FOLD.runtime, true);
  assert.equal(folded(THREAD, DEFAULT_FOLD), lines(
    '[runtime] 5',
    '[runtime];System.Threading.Thread.StartCallback;App.Worker.Run;App.Worker.Hot 30',
    '[runtime];System.Threading.Thread.StartCallback;App.Worker.Run;App.Worker.Step;[runtime] 10',
  ));
});

test('my code only: stacks start at the first own frame, the first call out of own code stays, no-own stacks are [external code]', () => {
  const text = `
    t;[libcoreclr.so];System.Threading.Thread.StartCallback|System.Private.CoreLib.dll;App.Main;System.Linq.Enumerable.ToList|System.Linq.dll;System.Linq.Enumerable+Iterator.Fill|System.Linq.dll;App.Main+<>c.<Select>b__0;App.Compute 7
    t;[libcoreclr.so];System.Threading.Thread.StartCallback|System.Private.CoreLib.dll;App.Main;System.Linq.Enumerable.ToList|System.Linq.dll;System.Linq.Enumerable+Iterator.Fill|System.Linq.dll 3
    t;[libcoreclr.so];System.Threading.Thread.StartCallback|System.Private.CoreLib.dll;App.Main;[libcoreclr.so];libc.so.6!memset 2
    pool;[libcoreclr.so];System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart|System.Private.CoreLib.dll 4
  `;
  assert.equal(folded(text, { ...DEFAULT_FOLD, myCode: true }), lines(
    'App.Main;System.Linq.Enumerable.ToList 3',
    'App.Main;System.Linq.Enumerable.ToList;App.Main+<>c.<Select>b__0;App.Compute 7',
    'App.Main;[runtime] 2',
    '[external code] 4',
  ));
});

test('group by assembly and by namespace: each run is one frame; natives by library', () => {
  const text = `
    t;App.Program.Main;App.Orders.Service.Run;System.Text.Json.JsonSerializer.Serialize|System.Text.Json.dll;System.Text.Json.Utf8JsonWriter.Flush|System.Text.Json.dll;libfoo.so!encode 3
    t;App.Program.Main;App.Orders.Service.Run;App.Orders.Pricing.Discount 5
  `;
  assert.equal(folded(text, { ...NO_FOLD, groupBy: 'assembly' }), lines(
    'App.dll 5',
    'App.dll;System.Text.Json.dll;[libfoo.so] 3',
  ));
  assert.equal(folded(text, { ...NO_FOLD, groupBy: 'namespace' }), lines(
    'App;App.Orders 5',
    'App;App.Orders;System.Text.Json;[libfoo.so] 3',
  ));
});

test('patterns: fold puts a frame\'s time into its caller, group makes a run one frame named by the pattern', () => {
  const text = `
    t;App.Main;System.Linq.Enumerable.ToList|System.Linq.dll;System.Linq.Enumerable.Fill|System.Linq.dll 4
    t;App.Main;Microsoft.AspNetCore.Routing.Route|Microsoft.AspNetCore.Routing.dll;Microsoft.AspNetCore.Mvc.Invoke|Microsoft.AspNetCore.Mvc.dll;App.Controller.Get 6
    t;System.Linq.Enumerable.Root|System.Linq.dll;App.Main 1
  `;
  const fold = parseFoldSpec(['no-runtime', 'fold:System.Linq.*', 'group:Microsoft.AspNetCore.*']);
  assert.equal(folded(text, fold), lines(
    'App.Main 4',
    'App.Main;Microsoft.AspNetCore.*;App.Controller.Get 6',
    'System.Linq.Enumerable.Root;App.Main 1',
  ), 'a folded frame with no caller stays');
});

test('recursion is kept as recursion; runs merge only for folded frames; the incomplete marker stays the root', () => {
  const text = `
    t;App.Walk;App.Walk;App.Walk 2
    t 3
    t;[libcoreclr.so];libc.so.6!read 1
  `;
  const analysis = new ProfileAnalysis(recordingFromStream([streamFromCollapsed(text)]));
  const tree = analysis.tree({ metric: 'cpu', fold: { ...DEFAULT_FOLD, myCode: true } }, false);
  assert.equal(flatTreeToCollapsed(tree), lines('App.Walk;App.Walk;App.Walk 2', '[external code] 1', '[incomplete stack] 3'));
});

test('fold specs parse in order from the defaults; unknown words are one sentence', () => {
  assert.deepEqual(parseFoldSpec([]), DEFAULT_FOLD);
  assert.deepEqual(parseFoldSpec(['none']), NO_FOLD);
  assert.deepEqual(parseFoldSpec(['mycode,namespace', 'group:Dictionary<A,B>*']), {
    runtime: true, myCode: true, groupBy: 'namespace', patterns: [{ action: 'group', glob: 'Dictionary<A,B>*' }],
  });
  assert.throws(() => parseFoldSpec(['runtime,bogus']), /--fold does not know 'bogus'/);
  assert.throws(() => parseFoldSpec(['fold:']), /needs a glob/);
});
