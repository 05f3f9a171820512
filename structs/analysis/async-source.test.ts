import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openRecording } from '../formats/clrscope-file/open-recording.js';
import { saveRecording } from '../formats/clrscope-file/save-recording.js';
import { frameLabel } from '../profile/frame-label.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import type { Recording } from '../profile/recording.js';
import { WireEncoder } from '../wire/encoder.js';
import { parseHexText } from '../wire/hex-text.js';
import { AsyncSource, awaitedMethodName } from './async-source.js';

const fixtureUrl = (name: string): URL => new URL(`../../../structs/wire/fixtures/${name}`, import.meta.url);

const F = { dispatch: 1, inner: 2, middle: 3, outer: 4, hot: 5, other: 6 };

/** A pool thread running Inner's continuation (Hot <- Inner.MoveNext <- Dispatch), with Inner awaited by Middle awaited by Outer. */
function asyncRecording(): Recording {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 9, flags: 0x13, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: '0.3.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 0x21, mono: 1000, name: 'pool' })
    .function({ functionId: F.dispatch, kind: 0, name: 'System.Threading.ThreadPoolWorkQueue.Dispatch', module: 'System.Private.CoreLib.dll', file: '' })
    .function({ functionId: F.inner, kind: 0, name: 'Demo.Db+<Inner>d__2.MoveNext', module: 'Demo.dll', file: '' })
    .function({ functionId: F.middle, kind: 0, name: 'Demo.Db+<Middle>d__1.MoveNext', module: 'Demo.dll', file: '' })
    .function({ functionId: F.outer, kind: 0, name: 'Demo.Api+<Outer>d__0.MoveNext', module: 'Demo.dll', file: '' })
    .function({ functionId: F.hot, kind: 0, name: 'Demo.Db.Hot', module: 'Demo.dll', file: '' })
    .function({ functionId: F.other, kind: 0, name: 'Demo.Other.Spin', module: 'Demo.dll', file: '' });
  for (let f = 1; f <= 6; f++) enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  enc.string(1, '<Inner>d__2').string(2, '<Middle>d__1').string(3, '<Outer>d__0')
    .task({ taskId: 3, awaiterId: 0, nameId: 3 }).task({ taskId: 5, awaiterId: 3, nameId: 2 }).task({ taskId: 7, awaiterId: 5, nameId: 1 })
    .stack(1, 0, [F.hot, F.inner, F.dispatch])
    .stack(2, 0, [F.other, F.dispatch])
    .stackSample(2000, 1, 1, 100, 0, 1, 7)   // in Inner's continuation
    .stackSample(3000, 1, 1, 200, 0, 1)      // same stack, no task: physical
    .stackSample(4000, 1, 1, 400, 0, 2, 7)   // a task whose frame is not on the stack: physical
    .task({ taskId: 8, awaiterId: 0, nameId: 1 })
    .stackSample(5000, 1, 1, 800, 0, 1, 8)   // a task nobody awaits: physical
    .end({ mono: 6000, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}

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
  assert.equal(awaitedMethodName('Task: <Run>b__0'), 'Task: <Run>b__0');
});
