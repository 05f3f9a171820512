// Which counters the counters view charts and how each value is derived from the points
// (counters-block field names as `clrscope counters --format json` prints them).

import type { CountersPoint } from '../../../structs/api/contract.js';

export type CounterUnit = 'count' | 'bytes' | 'bytes-per-second' | 'percent' | 'per-second';

export interface SeriesSpec {
  /** Stable id, used in data-testid attributes. */
  id: string;
  label: string;
  /** The value at `point`; `previous` is there for rates. Null when the point lacks the field. */
  value(point: CountersPoint, previous: CountersPoint | undefined): number | null;
}

export interface ChartSpec {
  id: string;
  title: string;
  unit: CounterUnit;
  series: SeriesSpec[];
}

function field(section: string, name: string): (p: CountersPoint) => number | null {
  return (p) => {
    const v = p.values[section]?.[name];
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  };
}

function plain(id: string, label: string, section: string, name: string): SeriesSpec {
  const read = field(section, name);
  return { id, label, value: (p) => read(p) };
}

/** A cumulative counter turned into a rate per second between two readings. */
function rate(id: string, label: string, section: string, name: string): SeriesSpec {
  const read = field(section, name);
  return {
    id,
    label,
    value: (p, prev) => {
      if (prev === undefined) return 0;
      const now = read(p);
      const before = read(prev);
      const seconds = (p.timeMs - prev.timeMs) / 1000;
      if (now === null || before === null || seconds <= 0) return null;
      return Math.max(0, now - before) / seconds;
    },
  };
}

const timeInGc: SeriesSpec = {
  id: 'time-in-gc',
  label: '% time in GC',
  // The perf counter's ratio pair: paused microseconds over elapsed microseconds.
  value: (p) => {
    const t = field('gc', 'timeInGC')(p);
    const base = field('gc', 'timeInGCBase')(p);
    if (t === null || base === null) return null;
    return base > 0 ? (100 * t) / base : 0;
  },
};

export const COUNTER_CHARTS: readonly ChartSpec[] = [
  {
    id: 'gc-count', title: 'GC collections', unit: 'count',
    series: [plain('gen0', 'gen0', 'gc', 'genCollections0'), plain('gen1', 'gen1', 'gc', 'genCollections1'), plain('gen2', 'gen2', 'gc', 'genCollections2')],
  },
  {
    id: 'heap', title: 'Heap size', unit: 'bytes',
    series: [
      plain('heap-gen0', 'gen0', 'gc', 'genHeapSize0'), plain('heap-gen1', 'gen1', 'gc', 'genHeapSize1'),
      plain('heap-gen2', 'gen2', 'gc', 'genHeapSize2'), plain('heap-loh', 'LOH', 'gc', 'lrgObjSize'),
    ],
  },
  { id: 'gc-time', title: '% time in GC', unit: 'percent', series: [timeInGc] },
  { id: 'exceptions', title: 'Exceptions thrown', unit: 'per-second', series: [rate('exceptions-rate', 'per second', 'exceptions', 'thrown')] },
  { id: 'jit', title: 'Methods jitted', unit: 'count', series: [plain('methods-jitted', 'methods', 'jit', 'methodsJitted')] },
  {
    id: 'threads', title: 'Threads', unit: 'count',
    series: [plain('threads-logical', 'logical', 'locksAndThreads', 'currentThreadsLogical'), plain('threads-physical', 'physical', 'locksAndThreads', 'currentThreadsPhysical')],
  },
  // clrscope's extras (structs/ipcblock/extras.ts): System.Runtime's figures as dotnet-counters shows them.
  { id: 'alloc', title: 'Allocation rate', unit: 'bytes-per-second', series: [plain('alloc-rate', 'allocated', 'extras', 'allocBytesPerSec')] },
  {
    id: 'memory', title: 'Memory', unit: 'bytes',
    series: [plain('working-set', 'working set', 'extras', 'workingSetBytes'), plain('gc-committed', 'GC committed', 'extras', 'gcCommittedBytes')],
  },
  { id: 'cpu', title: 'CPU usage (% of all cores)', unit: 'percent', series: [plain('cpu-percent', 'process', 'extras', 'cpuPercent')] },
  {
    id: 'thread-pool', title: 'Thread pool', unit: 'count',
    series: [plain('pool-threads', 'threads', 'extras', 'threadPoolThreads'), plain('pool-queue', 'queue length', 'extras', 'threadPoolQueueLength')],
  },
  {
    id: 'pool-completed', title: 'Thread pool work items completed', unit: 'per-second',
    series: [plain('pool-completed-rate', 'per second', 'extras', 'threadPoolCompletedPerSec')],
  },
  {
    id: 'contention', title: 'Lock contention', unit: 'count',
    series: [plain('contention', 'total', 'locksAndThreads', 'contention'), rate('contention-rate', 'per second', 'locksAndThreads', 'contention')],
  },
];

export interface ChartData {
  /** Seconds relative to the first point. */
  times: number[];
  /** One array per series; NaN where a point had no value. */
  values: number[][];
  /** Per series: the newest value, or null. */
  current: (number | null)[];
}

export function chartData(points: readonly CountersPoint[], spec: ChartSpec): ChartData {
  const t0 = points.length > 0 ? points[0].timeMs : 0;
  const times = points.map((p) => (p.timeMs - t0) / 1000);
  const values = spec.series.map((s) => points.map((p, i) => s.value(p, points[i - 1]) ?? Number.NaN));
  const current = values.map((v) => {
    for (let i = v.length - 1; i >= 0; i--) if (!Number.isNaN(v[i])) return v[i];
    return null;
  });
  return { times, values, current };
}
