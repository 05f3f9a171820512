import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SuspensionFlags } from '../../wire/records.js';
import { EtwSuspendReason, RuntimeEvent } from './constants.js';
import { GC_TYPE_BACKGROUND } from './runtime-event-readers.js';
import { SuspensionBuilder } from './suspension-builder.js';

const { GCSuspendEEBegin: BEGIN, GCSuspendEEEnd: STOPPED, GCStart: START, GCEnd: END, GCRestartEEEnd: RESTARTED } = RuntimeEvent;

/** One suspension from `at` (µs) lasting `us`, with whatever happens inside it. */
function pause(b: SuspensionBuilder, at: number, us: number, inside: (b: SuspensionBuilder, ns: number) => void = () => undefined, reason: number = EtwSuspendReason.GC): void {
  b.add(at * 1000, BEGIN, reason);
  b.add(at * 1000 + 10, STOPPED);
  inside(b, at * 1000 + 20);
  b.add((at + us) * 1000, RESTARTED);
}

test('a blocking GC: generation and induced from its GCStart, times from the suspend and restart events', () => {
  const b = new SuspensionBuilder();
  pause(b, 100, 50, (x, ns) => x.add(ns, START, 1, 1, 0));
  assert.deepEqual(b.build(), [{ mono: 100_000, durationNs: 50_000, suspendNs: 10, reason: 1, generation: 1, flags: SuspensionFlags.Induced }]);
});

test('the later pauses of a background GC are that GC\'s, until its GCEnd; ephemeral GCs beside it keep their own generation', () => {
  const b = new SuspensionBuilder();
  pause(b, 0, 40, (x, ns) => x.add(ns, START, 2, 0, GC_TYPE_BACKGROUND)); // starts the background GC
  pause(b, 200, 30, (x, ns) => { x.add(ns, START, 0, 0, 0); x.add(ns + 5, END, 0); }); // a gen0 GC meanwhile
  pause(b, 400, 20); // the background GC's final pause: no GCStart of its own
  b.add(450_000, END, 2);
  pause(b, 600, 25); // a GC suspension after the background GC ended, with no GCStart seen
  pause(b, 800, 5, undefined, EtwSuspendReason.Other); // not for a GC at all
  assert.deepEqual(b.build().map((s) => [s.mono / 1000, s.generation, s.reason]), [[0, 2, 1], [200, 0, 1], [400, 2, 1], [600, -1, 1], [800, -1, 0]]);
});

test('events out of time order (blocks from several threads) are sorted first', () => {
  const b = new SuspensionBuilder();
  b.add(2_000, START, 2, 0, 0);
  b.add(1_000, BEGIN, EtwSuspendReason.GC);
  b.add(9_000, RESTARTED);
  assert.deepEqual(b.build().map((s) => [s.mono, s.durationNs, s.generation]), [[1_000, 8_000, 2]]);
});
