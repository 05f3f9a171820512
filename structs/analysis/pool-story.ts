// The thread pool's story over time, from the runtime's own Threading events
// (ThreadPoolWorkerThreadStart/Stop, ThreadPoolWorkerThreadAdjustmentSample/Adjustment), which
// `record --requests` asks for and which travel as RUNTIME_EVENT records (structs/wire/PROTOCOL.md,
// RUNTIME_EVENT; older recordings' GC_EVENT ones are moved there as they are decoded), and the
// diagnosis when the pool starved, with the blocking sites of pool-blocking.ts.
//
// When the pool was short of threads. The pool adds a worker beyond its hill-climbing target only
// when work waits with every worker busy: its starvation gate (reason Starvation) or a worker
// blocking in a wait the runtime knows (reason CooperativeBlocking: Task.Wait, .Result, Monitor.Wait
// on .NET 7+). Such injections come a few every second while the shortage lasts, so a shortage is
// a run of them no more than a second apart, from the first to the last of the run; a lone one
// counts for nothing. The figure is the runtime's own judgement, not a guess from queue lengths.
// The queue's length and the completed work items come from System.Runtime's counters, polled once a
// second (POOL_GAUGE records, the same --requests): no event gives them without the per-work-item
// events' cost, and a once-a-second level says how much work waited, not when a shortage began.

import type { PoolGaugeRecord, RuntimeEventRecord } from '../wire/records.js';
import type { Recording } from '../profile/recording.js';
import { POOL_GAUGES } from '../wire/timeline/pool-gauges.js';
import { RUNTIME_EVENTS, RuntimeEventId, isPoolEvent } from '../wire/timeline/runtime-events.js';
import { poolBlocking, shortMethod, type BlockingSite, type PoolBlocking } from './pool-blocking.js';
import { hasWaitEvents, runtimeWaits } from './pool-waits.js';

const PoolEventId = RuntimeEventId;

/** ThreadPoolWorkerThreadAdjustmentAdjustment's Reason, as the runtime's manifest names them. */
export const ADJUSTMENT_REASONS = ['warm-up', 'initializing', 'random move', 'climbing move', 'change point', 'stabilizing', 'starvation', 'thread timed out', 'cooperative blocking'] as const;
const STARVATION = 6;
const COOPERATIVE_BLOCKING = 8;
const SHORTAGE_GAP_NS = 1e9;

export interface PoolPoint {
  /** ms from the recording's start. */
  tMs: number;
  /** Active workers after the event (start/stop), or the injection algorithm's new target (adjustment). */
  threads: number;
  kind: 'start' | 'stop' | 'adjustment';
  /** Adjustments: the reason's name. */
  reason?: string;
  /** Adjustments and samples: completed work items per second. */
  throughput?: number;
}

/** The pool's counters at a moment (POOL_GAUGE, once a second with --requests). */
export interface PoolGaugePoint {
  /** ms from the recording's start. */
  tMs: number;
  threads: number;
  /** Work items waiting in the pool's queues when the counters polled them. */
  queueLength: number;
  /** Work items completed per second since the previous point (null at the first). */
  completedPerS: number | null;
}

export interface Shortage {
  startMs: number;
  endMs: number;
  /** Injections in it, and of them for workers blocking (the rest: the starvation gate). */
  injections: number;
  blocking: number;
}

export interface Starvation {
  /** The pool's events were recorded (record --requests, .NET 8+): without them nothing is known. */
  poolEvents: boolean;
  starved: boolean;
  /** Time the pool was short of threads, summed over the shortages (ms). */
  shortMs: number;
  shortages: Shortage[];
  /** The most work items waiting at once, as the counters polled the queue (null: not recorded). */
  maxQueueLength: number | null;
  /** Work items completed from the first gauge to the last (null: not recorded). */
  completedItems: number | null;
  /** The most workers the pool had at once. */
  maxThreads: number;
  /** Workers the pool started during the recording. */
  threadsStarted: number;
  /** The site holding the most blocked pool-thread time, and its share of it (0..1). */
  topSite: string | null;
  topShare: number;
  diagnosis: string;
}

export interface PoolStory {
  points: PoolPoint[];
  /** The queue and completed items over time; empty without POOL_GAUGE records. */
  gauges: PoolGaugePoint[];
  starvation: Starvation;
  blocking: PoolBlocking;
}

export function poolEvents(rec: Recording): RuntimeEventRecord[] {
  return rec.timeline(RUNTIME_EVENTS).filter((e) => isPoolEvent(e.event));
}

function storyPoints(events: readonly RuntimeEventRecord[], startMono: number): PoolPoint[] {
  const points: PoolPoint[] = [];
  for (const e of events) {
    const tMs = Math.round((e.mono - startMono) / 1e3) / 1e3;
    if (e.event === PoolEventId.WorkerThreadStart || e.event === PoolEventId.WorkerThreadStop) {
      points.push({ tMs, threads: e.a, kind: e.event === PoolEventId.WorkerThreadStart ? 'start' : 'stop' });
    } else if (e.event === PoolEventId.Adjustment) {
      points.push({ tMs, threads: e.a, kind: 'adjustment', reason: ADJUSTMENT_REASONS[e.b] ?? `reason ${e.b}`, throughput: e.c / 1000 });
    }
  }
  return points;
}

/**
 * One process's gauges in time order (the first one's, in a recording of several: the pool story
 * is of one pool).
 */
function firstProcessGauges(rec: Recording): PoolGaugeRecord[] {
  const all = rec.timeline(POOL_GAUGES);
  const pid = all[0]?.pid ?? 0;
  return all.filter((g) => g.pid === pid).sort((a, b) => a.mono - b.mono);
}

/** The gauges as points, with the completed items per second between each and the one before it. */
function gaugePoints(gauges: readonly PoolGaugeRecord[], startMono: number): PoolGaugePoint[] {
  return gauges.map((g, i) => {
    const before = i > 0 ? gauges[i - 1] : undefined;
    const dt = before === undefined ? 0 : (g.mono - before.mono) / 1e9;
    return {
      tMs: Math.round((g.mono - startMono) / 1e3) / 1e3,
      threads: g.threads,
      queueLength: g.queueLength,
      completedPerS: before === undefined || dt <= 0 ? null : Math.round(Math.max(0, g.completed - before.completed) / dt),
    };
  });
}

function shortagesOf(events: readonly RuntimeEventRecord[], startMono: number): Shortage[] {
  const out: Shortage[] = [];
  let run: { first: number; last: number; n: number; blocking: number } | null = null;
  const close = (): void => {
    if (run !== null && run.n >= 2) {
      out.push({ startMs: (run.first - startMono) / 1e6, endMs: (run.last - startMono) / 1e6, injections: run.n, blocking: run.blocking });
    }
    run = null;
  };
  for (const e of events) {
    if (e.event !== PoolEventId.Adjustment || (e.b !== STARVATION && e.b !== COOPERATIVE_BLOCKING)) continue;
    if (run !== null && e.mono - run.last > SHORTAGE_GAP_NS) close();
    if (run === null) run = { first: e.mono, last: e.mono, n: 0, blocking: 0 };
    run.last = e.mono;
    run.n++;
    if (e.b === COOPERATIVE_BLOCKING) run.blocking++;
  }
  close();
  return out;
}

function diagnosisOf(s: Omit<Starvation, 'diagnosis'>, top: BlockingSite | undefined): string {
  if (!s.poolEvents) {
    return top === undefined
      ? 'This recording has no thread-pool events and no blocked pool threads (record with --requests, on .NET 8 or later, for the pool\'s story).'
      : `This recording has no thread-pool events (record with --requests for the pool's story); ${Math.round(100 * top.share)}% of blocked pool-thread time was in ${shortMethod(top.site)} waiting on ${top.waitingOn}.`;
  }
  if (!s.starved) {
    return top === undefined
      ? `The thread pool was never short of threads (at most ${s.maxThreads} workers), and no pool thread was seen blocked.`
      : `The thread pool was never short of threads (at most ${s.maxThreads} workers); ${Math.round(100 * top.share)}% of blocked pool-thread time was in ${shortMethod(top.site)} waiting on ${top.waitingOn}.`;
  }
  const where = top === undefined ? 'no pool thread was seen blocked (CPU-bound work items?)'
    : `${Math.round(100 * top.share)}% of blocked pool-thread time was in ${shortMethod(top.site)} waiting on ${top.waitingOn}`;
  const queued = s.maxQueueLength === null ? '' : `, with up to ${s.maxQueueLength} work item${s.maxQueueLength === 1 ? '' : 's'} queued`;
  return `The thread pool was short of threads for ${(s.shortMs / 1000).toFixed(1)} s${queued}: ${where}.`;
}

/** Where the blocked time comes from, said once for the report and the tab. */
function waitsNote(b: PoolBlocking, runtimeVersion: string): string {
  const w = b.runtimeWaits;
  if (w.available) {
    const sources = w.bySource.map((x) => `${x.count} ${x.source}`).join(', ');
    return `Blocked time is the runtime's own: ${w.count} WaitHandleWait waits of pool threads (${sources === '' ? 'none' : sources}), ${(w.waitMs / 1000).toFixed(2)} s; wall samples estimate ${(b.sampledBlockedMs / 1000).toFixed(2)} s.`;
  }
  const major = Number.parseInt(runtimeVersion, 10);
  if (Number.isFinite(major) && major > 0 && major < 9) {
    return `This runtime (${runtimeVersion}) raises no WaitHandleWait events (.NET 9 and later do): blocked time is estimated from wall samples.`;
  }
  return 'This recording has no WaitHandleWait events (they need --requests, .NET 9 or later and a clrscope that asks for them): blocked time is estimated from wall samples.';
}

/** The last time the recording knows of (target mono ns): its END, else its last sample. */
function recordingEnd(rec: Recording): number {
  const end = rec.end?.mono ?? 0;
  if (end > 0) return end;
  const { mono } = rec.sampleColumns();
  let last = rec.meta?.startMono ?? 0;
  for (let i = 0; i < mono.length; i++) if (mono[i] > last) last = mono[i];
  return last;
}

/** The pool's story of a recording: its timeline, the ranked blocking sites, the diagnosis. */
export function poolStory(rec: Recording): PoolStory {
  const startMono = rec.meta?.startMono ?? 0;
  const runtime = rec.timeline(RUNTIME_EVENTS);
  const events = runtime.filter((e) => isPoolEvent(e.event)).sort((a, b) => a.mono - b.mono);
  const points = storyPoints(events, startMono);
  const gaugeRecords = firstProcessGauges(rec);
  const gauges = gaugePoints(gaugeRecords, startMono);
  const shortages = shortagesOf(events, startMono);
  const blocking = poolBlocking(rec, runtimeWaits(runtime, recordingEnd(rec)), hasWaitEvents(runtime));
  blocking.runtimeWaits.note = waitsNote(blocking, rec.meta?.runtimeVersion ?? '');
  const top = blocking.sites[0];
  const workerCounts = points.filter((p) => p.kind !== 'adjustment').map((p) => p.threads);
  const base = {
    poolEvents: events.length > 0,
    starved: shortages.length > 0,
    shortMs: Math.round(shortages.reduce((s, x) => s + x.endMs - x.startMs, 0) * 1000) / 1000,
    shortages,
    maxQueueLength: gauges.length === 0 ? null : gauges.reduce((m, g) => (g.queueLength > m ? g.queueLength : m), 0),
    completedItems: gaugeRecords.length === 0 ? null : Math.max(0, gaugeRecords[gaugeRecords.length - 1].completed - gaugeRecords[0].completed),
    maxThreads: workerCounts.reduce((m, n) => (n > m ? n : m), 0),
    threadsStarted: points.filter((p) => p.kind === 'start').length,
    topSite: top?.site ?? null,
    topShare: top?.share ?? 0,
  };
  return { points, gauges, blocking, starvation: { ...base, diagnosis: diagnosisOf(base, top) } };
}
