import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventCounterValue } from '../../../structs/formats/nettrace/index.js';
import { countersRecordOf, countersTableOf, csvHeader, csvRowOf } from './counters-format.js';
import { camelCaseCounter, EventCountersValues } from './event-counters-values.js';

function value(name: string, kind: 'mean' | 'sum', v: number, provider = 'System.Runtime', intervalSec = 1): EventCounterValue {
  return { provider, name, displayName: name, displayUnits: '', kind, value: v, intervalSec, timestamp: 0 };
}

/** Two intervals of System.Runtime as .NET 10 sends them (a subset). */
function twoIntervals(): EventCountersValues {
  const values = new EventCountersValues();
  for (const [gen0, exceptions, pause] of [[120, 3, 2.5], [50, 0, 10]]) {
    values.add(value('cpu-usage', 'mean', 41.5));
    values.add(value('gen-0-gc-count', 'sum', gen0));
    values.add(value('gen-1-gc-count', 'sum', 1));
    values.add(value('gen-0-size', 'mean', 1024));
    values.add(value('loh-size', 'mean', 98304));
    values.add(value('exception-count', 'sum', exceptions));
    values.add(value('monitor-lock-contention-count', 'sum', 4));
    values.add(value('threadpool-thread-count', 'mean', 3));
    values.add(value('total-pause-time-by-gc', 'sum', pause, 'System.Runtime', 0.5));
    values.add(value('methods-jitted-count', 'mean', 371.6));
    values.add(value('il-bytes-jitted', 'mean', 47051));
    values.add(value('time-in-jit', 'sum', 12.5));
    values.add(value('assembly-count', 'mean', 17));
  }
  values.add(value('gen-0-gc-count', 'sum', 1000, 'Some.Other.Source'));
  return values;
}

test('rates are summed from the first interval, levels are the latest mean, both rounded into the block\'s fields', () => {
  const sections = twoIntervals().sections(12);
  assert.deepEqual(sections.gc, { genCollections0: 170, genCollections1: 2, genHeapSize0: 1024, lrgObjSize: 98304, timeInGC: 10000, timeInGCBase: 500000 });
  assert.deepEqual(sections.exceptions, { thrown: 3 });
  assert.deepEqual(sections.locksAndThreads, { contention: 8, currentThreadsPhysical: 12 });
  assert.deepEqual(sections.jit, { methodsJitted: 372, ilJittedCurrent: 47051, ilJittedTotal: 47051, timeInJit: 12500, timeInJitBase: 1000000 });
  assert.deepEqual(sections.loading, { assembliesCurrent: 17 });
  // Every counter as sent, by its camelCase name; other providers are not System.Runtime's.
  assert.equal(sections.systemRuntime.cpuUsage, 41.5);
  assert.equal(sections.systemRuntime.gen0GcCount, 50);
  assert.equal(sections.systemRuntime.threadpoolThreadCount, 3);
  assert.equal(Object.keys(sections.systemRuntime).length, 13);
  assert.equal(sections.contexts, undefined);
  // The figures the profiler's block carries as extras, from the same counters.
  assert.deepEqual(sections.extras, { cpuPercent: 41.5, threadPoolThreads: 3 });
});

test('the extras: rates per second of their interval, totals from the first interval, MB as bytes', () => {
  const values = new EventCountersValues();
  values.add(value('alloc-rate', 'sum', 2_000_000, 'System.Runtime', 2));
  values.add(value('alloc-rate', 'sum', 1_500_000));
  values.add(value('threadpool-completed-items-count', 'sum', 300));
  values.add(value('threadpool-queue-length', 'mean', 7));
  values.add(value('gc-committed', 'mean', 12.345678));
  values.add(value('working-set', 'mean', 50.5));
  const s = values.sections();
  assert.deepEqual(s.extras, {
    allocBytesPerSec: 1_500_000, allocatedBytes: 3_500_000, gcCommittedBytes: 12.345678e6, workingSetBytes: 50.5e6,
    threadPoolQueueLength: 7, threadPoolCompletedPerSec: 300, threadPoolCompleted: 300,
  });
  assert.equal(s.gc.totalCommittedBytes, 12345678);
  assert.equal(s.gc.alloc, 3_500_000);
});

test('% time in GC falls back to the runtime\'s own percentage when there is no pause time', () => {
  const values = new EventCountersValues();
  assert.equal(values.any, false);
  values.add(value('time-in-gc', 'mean', 3.25));
  assert.equal(values.any, true);
  assert.deepEqual(values.sections().gc, { timeInGC: 325, timeInGCBase: 10000 });
});

test('% time in GC stays at most 100% when a pause longer than the interval is counted when it ends', () => {
  const values = new EventCountersValues();
  // 3 s of pause reported in one 1 s interval (the runtime adds a pause when it ends).
  values.add(value('total-pause-time-by-gc', 'sum', 3000));
  assert.deepEqual(values.sections().gc, { timeInGC: 1_000_000, timeInGCBase: 1_000_000 });
});

test('camelCase names', () => {
  assert.equal(camelCaseCounter('cpu-usage'), 'cpuUsage');
  assert.equal(camelCaseCounter('gen-0-gc-count'), 'gen0GcCount');
  assert.equal(camelCaseCounter('threadpool-completed-items-count'), 'threadpoolCompletedItemsCount');
});

test('the printers: JSON keeps every block section (empty when nothing maps) plus systemRuntime, CSV leaves cells empty, the table dashes', () => {
  const sections = twoIntervals().sections(12);
  const at = new Date(Date.UTC(2026, 0, 1));
  const json = countersRecordOf(sections, 42, at);
  assert.deepEqual(Object.keys(json), ['timestamp', 'pid', 'gc', 'contexts', 'interop', 'loading', 'exceptions', 'locksAndThreads', 'jit', 'security', 'extras', 'systemRuntime']);
  assert.deepEqual(json.contexts, {});
  const header = csvHeader().split(',');
  const row = csvRowOf(sections, 42, at).split(',');
  assert.equal(row.length, header.length);
  assert.equal(row[header.indexOf('gc.genCollections0')], '170');
  assert.equal(row[header.indexOf('gc.inducedGCs')], '');
  const table = countersTableOf(sections, 42, 1000, at, 'from System.Runtime EventCounters');
  assert.match(table, /^clrscope counters: pid 42, refresh 1000 ms, 2026-01-01T00:00:00.000Z, from System.Runtime EventCounters$/m);
  assert.match(table, /GC collections gen0 \/ gen1 \/ gen2\s+170 \/ 2 \/ –/);
  assert.match(table, /Induced GCs\s+–/);
  assert.match(table, /% time in GC \(last second\)\s+2\.00/);
  assert.match(table, /Thread pool threads \/ queue length\s+3 \/ –/);
  assert.match(table, /CPU usage \(% of all cores\)\s+41\.5/);
  assert.match(table, /Allocation rate\s+–/);
  assert.equal(row[header.indexOf('extras.threadPoolThreads')], '3');
});
