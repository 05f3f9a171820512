import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openRecording } from '../formats/clrscope-file/open-recording.js';
import { saveRecording } from '../formats/clrscope-file/save-recording.js';
import { frameLabel } from '../profile/frame-label.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import type { Recording } from '../profile/recording.js';
import { parseHexText } from '../wire/hex-text.js';
import { WireDecoder } from '../wire/decoder.js';
import { Recording as LiveRecording } from '../profile/recording.js';
import { AsyncSource, awaitedMethodName, stateMachineOfMoveNext } from './async-source.js';
import { ASYNC_FIXTURE_FUNCTIONS as F, SUSPENDED_FIXTURE_FUNCTIONS as S, asyncFixtureStream, asyncLateMoveNextStreams, asyncSuspendedFixtureStream } from '../profile/async-fixture-stream.test-support.js';

const asyncRecording = (): Recording => recordingFromStream([asyncFixtureStream()]);

const fixtureUrl = (name: string): URL => new URL(`../../../structs/wire/fixtures/${name}`, import.meta.url);

/** Each sample's stack, root first, as `a;b;c cpu`. */
function dump(src: AsyncSource): string[] {
  const c = src.sampleColumns();
  return Array.from(c.stackId, (s, i) => `${Array.from(src.stackFrames(s)).reverse().map((f) => frameLabel(src.functionInfo(f) ?? { id: f, kind: 2, name: '?', module: '', file: '', moduleId: 0, token: 0 })).join(';')} ${c.cpuNs[i]}`);
}

test('a sample run in a task keeps its frames up to the running MoveNext and gets its awaiters above, root first', () => {
  const rec = asyncRecording();
  assert.equal(rec.hasAsync, true);
  const src = new AsyncSource(rec);
  assert.deepEqual(dump(src), [
    '[await] Demo.Api.Outer;[await] Demo.Db.Middle;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 100',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 200',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Other.Spin 400',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 800',
  ]);
  assert.equal(src.isSpliced(src.sampleStack(0)), true);
  assert.equal(src.isSpliced(src.sampleStack(1)), false);
  // Wire frame ids for the physical part, the [await] functions' own ids above it.
  const ids = Array.from(src.stackFrameIds(src.sampleStack(0)));
  assert.deepEqual(ids.slice(0, 2), [F.hot, F.inner]);
  assert.deepEqual(ids.slice(2).map((f) => src.functionInfo(f)?.name), ['[await] Demo.Db.Middle', '[await] Demo.Api.Outer']);
  assert.equal(src.functionInfo(ids[2])?.module, 'Demo.dll');
});

test("a suspended operation's wall sample gets its whole chain above [suspended], the operation itself included; CPU stays as it was", () => {
  const rec = recordingFromStream([asyncSuspendedFixtureStream()]);
  const src = new AsyncSource(rec);
  const c = src.sampleColumns();
  const wall = Array.from(c.stackId, (st, i) => `${Array.from(src.stackFrames(st)).reverse().map((f) => frameLabel(src.functionInfo(f) ?? { id: f, kind: 2, name: '?', module: '', file: '', moduleId: 0, token: 0 })).join(';')} ${c.wallNs[i]}`).filter((l) => !l.endsWith(' 0'));
  assert.deepEqual(wall, [
    '[await] Demo.Api.Outer;[await] Demo.Db.Middle;[await] Demo.Db.Inner;[suspended];[awaiting Task.Delay] 30000000',
    '[await] Demo.Api.Outer;[await] Demo.Db.Middle;[await] Demo.Db.Inner;[suspended];[awaiting Task.Delay] 20000000',
    '[await] Demo.Api.Outer;[suspended] 7000000',
  ]);
  assert.equal(src.sampleStack(4), src.sampleStack(5), 'one logical stack for both of Inner\'s charges');
  assert.equal(src.isSpliced(src.sampleStack(4)), true);
  // The physical part keeps its wire frame ids; the chain is [await] functions.
  assert.deepEqual(Array.from(src.stackFrameIds(src.sampleStack(4))).slice(0, 2), [S.awaitingDelay, S.suspended]);
  let cpu = 0;
  for (let i = 0; i < rec.sampleCount; i++) cpu += c.cpuNs[i];
  assert.equal(cpu, 1500);
  // Without the async view the samples are the [async operations] thread's, [suspended] at the root.
  assert.equal(rec.thread(2)?.name, '[async operations]');
  assert.equal(rec.functionInfo(rec.stackFrames(rec.sampleStackId(6))[0])?.name, '[suspended]');
});

test('a TASK defined again changes the chain of later samples only', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('async-v2.hex'), 'utf8'));
  const rec = recordingFromStream([bytes]);
  const chains = Array.from({ length: rec.sampleCount }, (_, i) => Array.from(rec.asyncChain(rec.sampleAsyncChain(i)), (n) => rec.strings().get(n)).join(' < '));
  assert.deepEqual(chains, ['<Inner>d__2 < <Middle>d__1 < <Outer>d__0', '', '<Inner>d__2 < <Middle>d__1 < <Outer>d__0', '<Inner>d__2 < <Outer>d__0']);
});

test('save and open keep each sample\'s chain, and save -> open -> save is byte-identical', () => {
  const rec = asyncRecording();
  const saved = saveRecording(rec);
  const back = openRecording(saved).recording;
  assert.equal(back.sampleCount, rec.sampleCount);
  assert.deepEqual(dump(new AsyncSource(back)), dump(new AsyncSource(rec)));
  assert.deepEqual(Array.from(saveRecording(back)), Array.from(saved));
});

test('operation counts (OPERATION_COUNTS) are kept per sample, through save and open and a merge of processes', async () => {
  const { mergeProcesses } = await import('../profile/merge-processes.js');
  const bytes = parseHexText(readFileSync(fixtureUrl('operations-v2.hex'), 'utf8'));
  const rec = recordingFromStream([bytes]);
  const counts = (r: Recording): number[] => Array.from({ length: r.sampleCount }, (_, i) => r.sampleOperations(i));
  assert.deepEqual(counts(rec), [3, 0, 2]);
  assert.equal(rec.hasOperationCounts, true);
  const saved = saveRecording(rec);
  const back = openRecording(saved).recording;
  assert.deepEqual(counts(back), [3, 0, 2]);
  assert.deepEqual(Array.from(saveRecording(back)), Array.from(saved));
  const merged = mergeProcesses([{ process: { pid: 4242, name: 'a' }, recording: rec }, { process: { pid: 4343, name: 'b' }, recording: back }]);
  assert.deepEqual(counts(merged).filter((n) => n > 0).sort(), [2, 2, 3, 3]);
  assert.equal(recordingFromStream([parseHexText(readFileSync(fixtureUrl('async-v2.hex'), 'utf8'))]).hasOperationCounts, false);
});

test('a recording without async records (a file from before them) has no chains and its logical stacks are its physical ones', () => {
  const bytes = parseHexText(readFileSync(fixtureUrl('basic-v2.hex'), 'utf8'));
  const rec = recordingFromStream([bytes]);
  assert.equal(rec.hasAsync, false);
  assert.equal(rec.asyncChainCount, 0);
  const src = new AsyncSource(rec);
  const c = src.sampleColumns();
  for (let i = 0; i < rec.sampleCount; i++) assert.deepEqual(Array.from(src.stackFrames(c.stackId[i])), Array.from(rec.stackFrames(rec.sampleStackId(i))));
});

test('an awaiting method is named from its state machine: <Name>d__N -> Name, anything else whole', () => {
  assert.equal(awaitedMethodName('<QueryAsync>d__4'), 'QueryAsync');
  assert.equal(awaitedMethodName('<ProcessRequests>d__237`1'), 'ProcessRequests');
  assert.equal(awaitedMethodName('<<Map>b__2_0>d'), '<Map>b__2_0');
  assert.equal(awaitedMethodName('<<ExecuteTaskOfString>g__ExecuteAwaited|135_0>d'), '<ExecuteTaskOfString>g__ExecuteAwaited|135_0');
  assert.equal(awaitedMethodName('Task: <Run>b__0'), 'Task: <Run>b__0');
  assert.equal(awaitedMethodName('Task.WhenAll'), 'Task.WhenAll');
});

test("a MoveNext's state machine is named as the runtime names it: generic arguments become the arity (Kestrel's, .NET 10)", () => {
  assert.deepEqual(stateMachineOfMoveNext('Demo.Db+<QueryAsync>d__4.MoveNext'), { type: 'Demo.Db', stateMachine: '<QueryAsync>d__4', plain: '<QueryAsync>d__4' });
  assert.deepEqual(stateMachineOfMoveNext('Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__237<System.__Canon>.MoveNext'),
    { type: 'Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol', stateMachine: '<ProcessRequests>d__237`1', plain: '<ProcessRequests>d__237' });
  assert.equal(stateMachineOfMoveNext('A+<M>d__3<System.Int32,System.Collections.Generic.List<System.String>>.MoveNext')?.stateMachine, '<M>d__3`2');
  // A method of a generic class: the runtime's name has no arity.
  assert.equal(stateMachineOfMoveNext('Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Infrastructure.KestrelConnection+<ExecuteAsync>d__8<System.__Canon>.MoveNext')?.plain, '<ExecuteAsync>d__8');
  assert.deepEqual(stateMachineOfMoveNext('Web.Endpoints+<>c+<<Map>b__2_0>d.MoveNext'), { type: 'Web.Endpoints+<>c', stateMachine: '<<Map>b__2_0>d', plain: '<<Map>b__2_0>d' });
  assert.equal(stateMachineOfMoveNext('Microsoft.AspNetCore.Http.RequestDelegateFactory+<<ExecuteTaskOfString>g__ExecuteAwaited|135_0>d.MoveNext')?.stateMachine,
    '<<ExecuteTaskOfString>g__ExecuteAwaited|135_0>d');
  // The runtime's box around a state machine, and ordinary methods, are not state machines.
  assert.equal(stateMachineOfMoveNext('System.Runtime.CompilerServices.AsyncTaskMethodBuilder+AsyncStateMachineBox<System.Int64,Demo.Db+<Inner>d__6>.MoveNext'), undefined);
  assert.equal(stateMachineOfMoveNext('System.Collections.Generic.List<System.Int32>+Enumerator.MoveNext'), undefined);
  assert.equal(stateMachineOfMoveNext('Demo.Db.QueryAsync'), undefined);
});

test('a recording that holds only recent samples marks chains by their index in the whole stream, and one that holds none takes the marks without failing', async () => {
  const { Recording } = await import('../profile/recording.js');
  const { WireDecoder } = await import('../wire/decoder.js');
  const bytes = asyncFixtureStream();
  const kept: Uint8Array[] = [];
  const recent = new Recording({
    keepSamples: 'recent',
    restoreSamples: () => recordingFromStream(kept),
  });
  const decoder = new WireDecoder(recent.sink);
  // One byte at a time, letting the samples go after each: every mark arrives after a release.
  for (let i = 0; i < bytes.length; i++) {
    kept.push(bytes.subarray(i, i + 1));
    decoder.push(bytes.subarray(i, i + 1));
    recent.releaseSamples();
  }
  assert.deepEqual(dump(new AsyncSource(recent)), dump(new AsyncSource(asyncRecording())));
  const none = new Recording({ keepSamples: false });
  new WireDecoder(none.sink).push(bytes);
  assert.equal(none.sampleCount, asyncRecording().sampleCount);
  assert.equal(none.hasAsync, true);
});

test("a live recording's [await] frame learns its type when its state machine's MoveNext arrives after the operation's first samples", () => {
  // The profiler names a task by its state machine only (`<Handler>d__1`); the type comes from a
  // sampled MoveNext, which may arrive after the first suspended samples of the operation.
  const rec = new LiveRecording();
  const decoder = new WireDecoder(rec.sink);
  const [first, later] = asyncLateMoveNextStreams();
  decoder.push(first);
  const src = new AsyncSource(rec);
  const chain = (i: number): string[] => Array.from(src.stackFrames(src.sampleStack(i))).reverse().map((f) => src.functionInfo(f)?.name ?? '?');
  assert.deepEqual(chain(0), ['[await] Client', '[await] Handler', '[suspended]']);
  const before = src.nameGeneration;
  decoder.push(later);
  assert.equal(src.nameGeneration, before + 1, 'one [await] function renamed');
  assert.deepEqual(chain(0), ['[await] Client', '[await] Demo.Requests.Handler', '[suspended]']);
  assert.equal(src.functionInfo(src.stackFrames(src.sampleStack(0))[1])?.module, 'Demo.dll');
  // A promise has no MoveNext to wait for: it is never looked for again.
  assert.deepEqual(chain(1), ['[await] Task.WhenAll', '[suspended]']);
});
