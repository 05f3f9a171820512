// A small wire v2 stream with async call stacks, for the tests of the splice and of every
// exporter: a pool thread running Inner's continuation (Hot <- Inner.MoveNext <- Dispatch) while
// Inner is awaited by Middle, awaited by Outer; samples outside any task, in a task whose frame
// is not on the stack, and in a task nobody awaits keep their physical stacks.

import { WireEncoder } from '../wire/encoder.js';

export const ASYNC_FIXTURE_FUNCTIONS = { dispatch: 1, inner: 2, middle: 3, outer: 4, hot: 5, other: 6 };
const F = ASYNC_FIXTURE_FUNCTIONS;

/** A pool thread running Inner's continuation (Hot <- Inner.MoveNext <- Dispatch), with Inner awaited by Middle awaited by Outer. */
export function asyncFixtureStream(): Uint8Array {
  return asyncFixtureRecords().end({ mono: 6000, reason: 0 }).bytes().slice();
}

function asyncFixtureRecords(): WireEncoder {
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
    .stackSample(5000, 1, 1, 800, 0, 1, 8);  // a task nobody awaits: physical
  return enc;
}


export const SUSPENDED_FIXTURE_FUNCTIONS = { suspended: 7, awaitingDelay: 8 };

/**
 * The async fixture plus the profiler's suspended-operation samples: its "[async operations]"
 * thread (no OS thread) with wall-only samples whose stack is `[suspended]` (under `[awaiting
 * Task.Delay]` when the awaited task is known) and whose task is the suspended operation: Inner
 * (awaited by Middle, awaited by Outer) for 50 ms awaiting a delay, Outer alone for 7 ms.
 * `operations`: how many suspended operations each of the three samples stands for
 * (OPERATION_COUNTS), none by default.
 */
export function asyncSuspendedFixtureStream(operations: readonly [number, number, number] = [0, 0, 0]): Uint8Array {
  const S = SUSPENDED_FIXTURE_FUNCTIONS;
  return asyncFixtureRecords()
    .thread({ threadId: 2, osTid: 0, clrThreadId: 0, mono: 1000, name: '[async operations]' })
    .function({ functionId: S.suspended, kind: 2, name: '[suspended]', module: '', file: '' })
    .function({ functionId: S.awaitingDelay, kind: 2, name: '[awaiting Task.Delay]', module: '', file: '' })
    .frame({ frameId: S.suspended, functionId: S.suspended, offsetKind: 0, offset: 0 })
    .frame({ frameId: S.awaitingDelay, functionId: S.awaitingDelay, offsetKind: 0, offset: 0 })
    .stack(3, 0, [S.awaitingDelay, S.suspended])
    .stack(4, 0, [S.suspended])
    .stackSample(5500, 2, 2, 0, 30_000_000, 3, 7, operations[0])
    .stackSample(5600, 2, 2, 0, 20_000_000, 3, 7, operations[1])
    .stackSample(5600, 2, 2, 0, 7_000_000, 4, 3, operations[2])
    .end({ mono: 6000, reason: 0 })
    .bytes().slice();
}

/**
 * A live stream in two parts: first the suspended wall samples of Client awaiting Handler and of
 * a `Task.WhenAll` promise (the profiler names a task by its state machine alone,
 * `<Handler>d__1`), then the first sample of Handler's MoveNext, which gives its type.
 */
export function asyncLateMoveNextStreams(): [Uint8Array, Uint8Array] {
  const enc = new WireEncoder();
  const first = enc.preamble()
    .hello({ pid: 9, flags: 0x13, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: '0.3.0' })
    .thread({ threadId: 2, osTid: 0, clrThreadId: 0, mono: 1000, name: '[async operations]' })
    .function({ functionId: 1, kind: 2, name: '[suspended]', module: '', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .string(1, '<Handler>d__1').string(2, '<Client>d__0').string(3, 'Task.WhenAll')
    .task({ taskId: 1, awaiterId: 0, nameId: 2 }).task({ taskId: 2, awaiterId: 1, nameId: 1 }).task({ taskId: 3, awaiterId: 0, nameId: 3 })
    .stack(1, 0, [1])
    .stackSample(2000, 2, 2, 0, 10_000_000, 1, 2)
    .stackSample(2000, 2, 2, 0, 10_000_000, 1, 3)
    .takeBytes(true);
  const later = enc
    .thread({ threadId: 1, osTid: 11, clrThreadId: 0x21, mono: 1000, name: 'pool' })
    .function({ functionId: 2, kind: 0, name: 'Demo.Requests+<Handler>d__1.MoveNext', module: 'Demo.dll', file: '' })
    .frame({ frameId: 2, functionId: 2, offsetKind: 0, offset: 0 })
    .stack(2, 0, [2])
    .stackSample(3000, 1, 1, 100, 0, 2)
    .takeBytes(true);
  return [first, later];
}
