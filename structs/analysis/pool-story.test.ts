import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openRecording } from '../formats/clrscope-file/open-recording.js';
import { FIXTURE_START_MONO, fixtureEncoder } from '../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { GC_EVENTS } from '../wire/timeline/gc-events.js';
import { POOL_GAUGES } from '../wire/timeline/pool-gauges.js';
import { RUNTIME_EVENTS } from '../wire/timeline/runtime-events.js';
import { buildGcStats } from './gc-stats.js';
import { poolStory } from './pool-story.js';

const T = FIXTURE_START_MONO;
const MS = 1e6;

function adjustment(mono: number, threads: number, reason: number): { mono: number; tid: number; event: number; version: number; a: number; b: number; c: number; d: number } {
  return { mono, tid: 7, event: 55, version: 0, a: threads, b: reason, c: 12_500, d: 0 };
}

// Recordings made before RUNTIME_EVENT carried the pool's events as GC_EVENT: both read the same.
for (const kind of [RUNTIME_EVENTS, GC_EVENTS]) {
  test(`a run of starvation and blocking injections no more than a second apart is a shortage; a lone one is not (${kind.name})`, () => {
  const enc = fixtureEncoder();
  enc.timeline(kind, { mono: T + 1 * MS, tid: 7, event: 50, version: 0, a: 2, b: 0, c: 0, d: 0 });
  enc.timeline(kind, adjustment(T + 100 * MS, 3, 3)); // hill climbing: not a shortage
  enc.timeline(kind, adjustment(T + 1000 * MS, 4, 8));
  enc.timeline(kind, adjustment(T + 1500 * MS, 5, 6));
  enc.timeline(kind, adjustment(T + 2400 * MS, 6, 8));
  enc.timeline(kind, { mono: T + 2401 * MS, tid: 9, event: 50, version: 0, a: 6, b: 0, c: 0, d: 0 });
  enc.timeline(kind, adjustment(T + 9000 * MS, 7, 6)); // alone, 6.6 s later
  const rec = recordingFromStream([enc.bytes().slice()]);
  const story = poolStory(rec);
  const s = story.starvation;
  assert.equal(s.poolEvents, true);
  assert.equal(s.starved, true);
  assert.deepEqual(s.shortages.map((x) => [Math.round(x.endMs - x.startMs), x.injections, x.blocking]), [[1400, 3, 2]]);
  assert.equal(s.shortMs, 1400);
  assert.equal(s.maxThreads, 6);
  assert.equal(s.threadsStarted, 2);
  assert.deepEqual(story.points.filter((p) => p.kind === 'adjustment').map((p) => p.reason), ['climbing move', 'cooperative blocking', 'starvation', 'cooperative blocking', 'starvation']);
  assert.equal(story.points[1].throughput, 12.5);
  // No blocked pool thread in this stream: the sentence says so rather than naming a site.
  assert.equal(s.diagnosis, 'The thread pool was short of threads for 1.4 s: no pool thread was seen blocked (CPU-bound work items?).');
  // The GC table is not handed the pool's events at all, whichever kind carried them.
  assert.equal(rec.timeline(GC_EVENTS).length, 0);
  assert.equal(rec.timeline(RUNTIME_EVENTS).length, 7);
  assert.equal(buildGcStats(rec.timeline(GC_EVENTS)).rows.length, 0);
  });
}

test('the queue and the completed items come from the gauges, once a second, of the first process alone; without gauges they are null', () => {
  const enc = fixtureEncoder();
  enc.timeline(RUNTIME_EVENTS, adjustment(T + 1000 * MS, 4, 6));
  enc.timeline(RUNTIME_EVENTS, adjustment(T + 1800 * MS, 5, 6));
  enc.poolGauge({ mono: T + 1000 * MS, threads: 4, queueLength: 0, completed: 1000 });
  enc.poolGauge({ mono: T + 2000 * MS, threads: 5, queueLength: 37, completed: 1500 });
  enc.poolGauge({ mono: T + 2500 * MS, threads: 6, queueLength: 12, completed: 1600 });
  // Another process of a merged recording: not this pool's story.
  enc.timeline(POOL_GAUGES, { mono: T + 2200 * MS, threads: 40, queueLength: 900, completed: 99_999, pid: 4242 });
  const story = poolStory(recordingFromStream([enc.bytes().slice()]));
  assert.deepEqual(story.gauges.map((g) => [g.tMs, g.threads, g.queueLength, g.completedPerS]), [[1000, 4, 0, null], [2000, 5, 37, 500], [2500, 6, 12, 200]]);
  assert.equal(story.starvation.maxQueueLength, 37);
  assert.equal(story.starvation.completedItems, 600);
  assert.equal(story.starvation.diagnosis, 'The thread pool was short of threads for 0.8 s, with up to 37 work items queued: no pool thread was seen blocked (CPU-bound work items?).');
  const none = fixtureEncoder();
  none.timeline(RUNTIME_EVENTS, adjustment(T + 1000 * MS, 4, 6));
  const bare = poolStory(recordingFromStream([none.bytes().slice()]));
  assert.deepEqual(bare.gauges, []);
  assert.equal(bare.starvation.maxQueueLength, null);
  assert.equal(bare.starvation.completedItems, null);
});

test('a recording without the pool\'s events says so in one sentence', () => {
  const s = poolStory(recordingFromStream([fixtureEncoder().bytes().slice()])).starvation;
  assert.equal(s.poolEvents, false);
  assert.equal(s.starved, false);
  assert.match(s.diagnosis, /^This recording has no thread-pool events/);
});

test('a long recording\'s many pool events do not overflow the call stack', () => {
  const enc = fixtureEncoder();
  for (let i = 0; i < 200_000; i++) enc.timeline(RUNTIME_EVENTS, { mono: T + i * 1000, tid: 7, event: i % 2 === 0 ? 50 : 51, version: 0, a: 2 + (i % 5), b: 0, c: 0, d: 0 });
  const s = poolStory(recordingFromStream([enc.bytes().slice()])).starvation;
  assert.equal(s.maxThreads, 6);
  assert.equal(s.threadsStarted, 100_000);
});

// A real recording by the profiler before RUNTIME_EVENT existed (RequestWeb on .NET 10 under
// `record --requests --no-wall`, 8 requests of /block/300): its pool events are GC_EVENT records.
test('a recording made when the pool\'s events travelled as GC_EVENT still tells the pool\'s story, and its GC table has none of them', () => {
  const file = new URL('../../../structs/analysis/fixtures/pool-events-as-gc-event.clrscope', import.meta.url);
  const rec = openRecording(readFileSync(file)).recording;
  assert.equal(rec.meta?.runtimeVersion, '10.0.12');
  assert.equal(rec.timeline(GC_EVENTS).length, 0);
  assert.deepEqual([...new Set(rec.timeline(RUNTIME_EVENTS).map((e) => e.event))].sort((a, b) => a - b), [50, 54, 55]);
  assert.equal(rec.timeline(RUNTIME_EVENTS).length, 27);
  const story = poolStory(rec);
  assert.equal(story.starvation.poolEvents, true);
  assert.equal(story.starvation.threadsStarted, 9);
  assert.equal(story.blocking.runtimeWaits.available, false);
  assert.match(story.blocking.runtimeWaits.note, /^This recording has no WaitHandleWait events/);
});
