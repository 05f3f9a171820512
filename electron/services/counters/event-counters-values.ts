// Counters from System.Runtime's EventCounters, for processes whose runtime will not load
// clrscope's profiler (so there is no counters block). They land in the block's sections and
// fields where the meaning matches, so `clrscope counters` and the workstation's counters panel
// show them like block readings, and every counter as the runtime sent it goes into an extra
// section, `systemRuntime` (camelCase names: cpu-usage → cpuUsage; a level's mean, or a rate's
// increment over its last interval).
//
// Rates (CounterType "Sum": gen-0-gc-count, exception-count, …) are summed from the session's
// start. They count from there, as the block's counts do after an attach, not from the
// process's start: enabling the counters resets each polled total's previous value to its
// current one (CounterGroup.ResetCounters), so the first increment covers the first interval
// only (seen on .NET 10: a program that had collected 800 times sent 200, its one-second rate).
//
// The figures the block carries in its extras (thread pool, allocation rate, committed bytes,
// working set, CPU %) come from the very counters clrscope's profiler reads in-process
// (native-profiler/core/event_counters.h), so they land in the same `extras` fields.
//
// Fields that stay empty (no System.Runtime counter says them): gc.promotedMem0/1,
// promotedFinalizationMem, processID, totalReservedBytes, surviveFinalize, handles, largeAlloc,
// inducedGCs, pinnedObj, sinkBlocks (and extras.gcHandles); every contexts, interop and security
// field; loading except assembliesCurrent; exceptions.filtersExecuted, finallysExecuted,
// throwToCatchStackDepth; locksAndThreads.queueLength* (the Framework's lock queue, not the thread
// pool's), currentThreadsLogical, recognizedThreads*; jit.jitFailures.
// locksAndThreads.currentThreadsPhysical is the process's OS thread count, passed in by the caller.

import type { EventCounterValue } from '../../../structs/formats/nettrace/index.js';
import { EXTRAS_SECTION, type CounterSections } from './counters-format.js';

/**
 * How long to wait after a counter for more of the same interval before showing the values: the
 * runtime writes an interval's counters together, but they reach the session in pieces (seen up
 * to ~100 ms apart in the first interval, while the runtime compiles the counters' callbacks).
 * Well under the shortest interval (1 s), so two intervals never merge.
 */
export const COUNTERS_SETTLE_MS = 300;

/** The provider whose counters map onto the block. */
export const SYSTEM_RUNTIME = 'System.Runtime';
/** The extra section with every System.Runtime counter as sent. */
export const SYSTEM_RUNTIME_SECTION = 'systemRuntime';

type Target = [section: string, field: string];

/** Counters whose running total (rates) or latest mean (levels) is a block field. */
const DIRECT: Record<string, Target[]> = {
  'gen-0-gc-count': [['gc', 'genCollections0']],
  'gen-1-gc-count': [['gc', 'genCollections1']],
  'gen-2-gc-count': [['gc', 'genCollections2']],
  'gen-0-size': [['gc', 'genHeapSize0']],
  'gen-1-size': [['gc', 'genHeapSize1']],
  'gen-2-size': [['gc', 'genHeapSize2']],
  'loh-size': [['gc', 'lrgObjSize']],
  'alloc-rate': [['gc', 'alloc']],
  'exception-count': [['exceptions', 'thrown']],
  'monitor-lock-contention-count': [['locksAndThreads', 'contention']],
  'methods-jitted-count': [['jit', 'methodsJitted']],
  'il-bytes-jitted': [['jit', 'ilJittedCurrent'], ['jit', 'ilJittedTotal']],
  'assembly-count': [['loading', 'assembliesCurrent']],
};

/** cpu-usage → cpuUsage, gen-0-gc-count → gen0GcCount. */
export function camelCaseCounter(name: string): string {
  return name.replace(/[-_.\s]+([a-z0-9])/gi, (_m, c: string) => c.toUpperCase());
}

export class EventCountersValues {
  private readonly latest = new Map<string, EventCounterValue>();
  private readonly totals = new Map<string, number>();

  /** Takes one counter value (other providers' are ignored). */
  add(counter: EventCounterValue): void {
    if (counter.provider !== SYSTEM_RUNTIME) return;
    this.latest.set(counter.name, counter);
    if (counter.kind === 'sum') this.totals.set(counter.name, (this.totals.get(counter.name) ?? 0) + counter.value);
  }

  /** Whether any System.Runtime counter has arrived. */
  get any(): boolean {
    return this.latest.size > 0;
  }

  /** The sections as a block reading would give them, with only the fields that map; `osThreads` fills currentThreadsPhysical. */
  sections(osThreads?: number): CounterSections {
    const out: CounterSections = {};
    const put = (section: string, field: string, value: number): void => {
      (out[section] ??= {})[field] = Math.round(value);
    };
    for (const [name, targets] of Object.entries(DIRECT)) {
      const c = this.latest.get(name);
      if (c === undefined) continue;
      const value = c.kind === 'sum' ? (this.totals.get(name) ?? 0) : c.value;
      for (const [section, field] of targets) put(section, field, value);
    }
    // % time in GC as the block's ratio: µs paused for GC over µs of the last interval, as
    // clrscope's writer keeps it; else the runtime's "% time in GC since the last GC".
    const paused = this.latest.get('total-pause-time-by-gc');
    const pct = this.latest.get('time-in-gc');
    if (paused !== undefined && paused.intervalSec > 0) {
      // The runtime adds a pause to this counter when it ends, whole: one longer than the
      // interval would read above 100%. Its part before the interval belongs to intervals
      // already shown, so the interval counts as fully paused at most.
      const base = paused.intervalSec * 1e6;
      put('gc', 'timeInGC', Math.min(paused.value * 1000, base));
      put('gc', 'timeInGCBase', base);
    } else if (pct !== undefined) {
      put('gc', 'timeInGC', pct.value * 100);
      put('gc', 'timeInGCBase', 10000);
    }
    const jit = this.latest.get('time-in-jit');
    if (jit !== undefined && jit.intervalSec > 0) {
      put('jit', 'timeInJit', jit.value * 1000);
      put('jit', 'timeInJitBase', jit.intervalSec * 1e6);
    }
    if (osThreads !== undefined) put('locksAndThreads', 'currentThreadsPhysical', osThreads);
    this.putExtras(out);
    const raw: Record<string, number> = {};
    for (const [name, c] of this.latest) raw[camelCaseCounter(name)] = c.value;
    out[SYSTEM_RUNTIME_SECTION] = raw;
    return out;
  }

  /** The extras as the profiler publishes them: rates per second, totals since the session began, MB as bytes. */
  private putExtras(out: CounterSections): void {
    const extras: Record<string, number> = {};
    const level = (name: string, field: string, scale = 1): void => {
      const c = this.latest.get(name);
      if (c !== undefined && c.kind === 'mean') extras[field] = c.value * scale;
    };
    const rate = (name: string, perSecond: string, total: string): void => {
      const c = this.latest.get(name);
      if (c === undefined || c.kind !== 'sum') return;
      extras[perSecond] = c.intervalSec > 0 ? c.value / c.intervalSec : c.value;
      extras[total] = Math.round(this.totals.get(name) ?? 0);
    };
    rate('alloc-rate', 'allocBytesPerSec', 'allocatedBytes');
    level('gc-committed', 'gcCommittedBytes', 1e6);
    level('working-set', 'workingSetBytes', 1e6);
    level('cpu-usage', 'cpuPercent');
    level('threadpool-thread-count', 'threadPoolThreads');
    level('threadpool-queue-length', 'threadPoolQueueLength');
    rate('threadpool-completed-items-count', 'threadPoolCompletedPerSec', 'threadPoolCompleted');
    if (extras.gcCommittedBytes !== undefined) (out.gc ??= {}).totalCommittedBytes = Math.round(extras.gcCommittedBytes);
    out[EXTRAS_SECTION] = extras;
  }
}
