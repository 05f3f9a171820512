// The recording's overview for the views: identity, duration, per-thread CPU and wall time,
// every pause, drops and how the stream ended. Views ask for it every refresh, so per-thread
// totals are kept incrementally: each sample is counted once, not once per request.

import { recordingGcStats, type GcRow } from '../../../structs/analysis/gc-stats.js';
import { GC_EVENTS } from '../../../structs/wire/timeline/gc-events.js';
import { processPrefix } from '../../../structs/profile/merge-processes.js';
import { pauseEntries } from '../../../structs/profile/pause-summary.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { EVENT_METRICS, type EventMetric } from '../../../structs/profile/event-metrics.js';
import { isStacklessCpuStack } from '../../../structs/profile/stackless-cpu.js';
import type { RecordingSummary, ThreadSummary } from './protocol.js';

const NS_PER_MS = 1e6;
const DENSE_LIMIT = 1 << 20;

export class SummaryTracker {
  private readonly rec: Recording;
  private counted = 0;
  private threadsSeen = -1;
  private latestSampleMono = -Infinity;
  // Per-thread sums indexed by thread id (writers number threads from 1), grown as needed;
  // ids too large for an array go to the Map.
  private cpu = new Float64Array(64);
  private wall = new Float64Array(64);
  private readonly sparse = new Map<number, { cpuNs: number; wallNs: number }>();
  // CPU that came without a fresh stack (structs/profile/stackless-cpu.ts), and which stacks are such.
  private stacklessCpuNs = 0;
  private readonly stacklessStacks = new Map<number, boolean>();

  private readonly keepMinutes: number | null;

  /** `keepMinutes`: the window the session keeps (the recording lets older data go), said in the summary. */
  constructor(rec: Recording, keepMinutes: number | null = null) {
    this.rec = rec;
    this.keepMinutes = keepMinutes;
  }

  /** `error` is the sentence describing why the stream stopped being readable, if it did. */
  summarize(error: string | null): RecordingSummary {
    const rec = this.rec;
    this.countNewSamples();
    const meta = rec.meta;
    const threads: ThreadSummary[] = rec.threads()
      .map((t) => ({ id: t.id, osTid: t.osTid, name: t.name, pid: rec.processOf(t.id)?.pid ?? null, ended: t.ended, ...this.totalsOf(t.id) }))
      .sort((a, b) => a.id - b.id);
    const stats = rec.stats;
    const dropped = stats === undefined ? 0 : stats.droppedRingFull + stats.droppedBufferFull + stats.droppedWatchdog + stats.droppedOther;
    return {
      pid: meta?.pid ?? null,
      runtimeVersion: meta?.runtimeVersion ?? null,
      intervalNs: meta?.intervalNs ?? 0,
      durationMs: meta === undefined ? 0 : Math.max(0, this.latestMono() - meta.startMono) / NS_PER_MS,
      sampleCount: rec.sampleCount,
      droppedSamples: dropped,
      stacklessCpuMs: this.stacklessCpuNs / NS_PER_MS,
      threads,
      processes: rec.processes().map((p) => ({ pid: p.pid, name: p.name, label: processPrefix(p) })),
      pauses: meta === undefined ? [] : pauseEntries(rec.suspensions(), meta.startMono),
      gcs: meta === undefined ? [] : this.gcRows(meta.startMono),
      eventMetrics: this.eventMetrics(),
      hasAsync: rec.hasAsync,
      keepMinutes: this.keepMinutes,
      keptFromMs: meta === undefined || rec.keptFromMono === -Infinity ? null : (rec.keptFromMono - meta.startMono) / NS_PER_MS,
      signalLostMs: meta === undefined || stats?.signalLostMono === undefined ? null : Math.max(0, stats.signalLostMono - meta.startMono) / NS_PER_MS,
      ownCost: stats?.cost ?? null,
      ended: rec.end !== undefined,
      error,
    };
  }

  // The GC table is built again only when GC events came since the last summary.
  private gcEventsSeen = -1;
  private gcs: GcRow[] = [];
  private gcRows(startMono: number): GcRow[] {
    const count = this.rec.timeline(GC_EVENTS).length;
    if (count !== this.gcEventsSeen) {
      this.gcEventsSeen = count;
      this.gcs = recordingGcStats(this.rec).rows.map((r) => ({ ...r, startNs: r.startNs - startMono }));
    }
    return this.gcs;
  }

  // Kinds only ever appear, so once all three are seen nothing is scanned again.
  private eventKinds = new Set<number>();
  private eventsSeen = 0;
  private eventMetrics(): EventMetric[] {
    const { kind } = this.rec.events();
    for (let i = this.eventsSeen; i < kind.length; i++) this.eventKinds.add(kind[i]);
    this.eventsSeen = kind.length;
    return EVENT_METRICS.filter((m) => this.eventKinds.has(m.kind)).map((m) => m.metric);
  }

  private totalsOf(id: number): { cpuNs: number; wallNs: number } {
    if (id < DENSE_LIMIT) return id < this.cpu.length ? { cpuNs: this.cpu[id], wallNs: this.wall[id] } : { cpuNs: 0, wallNs: 0 };
    return this.sparse.get(id) ?? { cpuNs: 0, wallNs: 0 };
  }

  /** Counts the samples that arrived since the last call (before a recording that keeps only recent ones lets them go). */
  catchUp(): void {
    this.countNewSamples();
  }

  private countNewSamples(): void {
    let { base, columns } = this.rec.recentSamples();
    if (this.counted < base) {
      columns = this.rec.sampleColumns();
      base = 0;
    }
    const { mono, threadId, stackId, cpuNs, wallNs } = columns;
    // Threads only ever get added: the list is looked at again only when there are more.
    if (this.rec.threadCount !== this.threadsSeen) {
      for (const t of this.rec.threads()) {
        if (t.id < DENSE_LIMIT && t.id >= this.cpu.length) this.grow(t.id + 1);
      }
      this.threadsSeen = this.rec.threadCount;
    }
    const cpu = this.cpu;
    const wall = this.wall;
    let latest = this.latestSampleMono;
    for (let i = this.counted - base; i < mono.length; i++) {
      const id = threadId[i];
      if (id < cpu.length) {
        cpu[id] += cpuNs[i];
        wall[id] += wallNs[i];
      } else {
        this.addSparse(id, cpuNs[i], wallNs[i]);
      }
      if (mono[i] > latest) latest = mono[i];
      if (cpuNs[i] > 0) {
        let stackless = this.stacklessStacks.get(stackId[i]);
        if (stackless === undefined) {
          stackless = isStacklessCpuStack(this.rec, stackId[i]);
          this.stacklessStacks.set(stackId[i], stackless);
        }
        if (stackless) this.stacklessCpuNs += cpuNs[i];
      }
    }
    this.latestSampleMono = latest;
    this.counted = base + mono.length;
  }

  private addSparse(id: number, cpuNs: number, wallNs: number): void {
    let sums = this.sparse.get(id);
    if (sums === undefined) {
      sums = { cpuNs: 0, wallNs: 0 };
      this.sparse.set(id, sums);
    }
    sums.cpuNs += cpuNs;
    sums.wallNs += wallNs;
  }

  private grow(need: number): void {
    let size = this.cpu.length;
    while (size < need) size *= 2;
    const cpu = new Float64Array(size);
    cpu.set(this.cpu);
    this.cpu = cpu;
    const wall = new Float64Array(size);
    wall.set(this.wall);
    this.wall = wall;
  }

  /** The latest target time any record speaks of: a sample, a thread event, a pause's end, STATS or END. */
  private latestMono(): number {
    const rec = this.rec;
    let latest = this.latestSampleMono;
    for (const t of rec.threads()) latest = Math.max(latest, t.lastSeenMono);
    for (const s of rec.suspensions()) latest = Math.max(latest, s.mono + s.durationNs);
    if (rec.stats !== undefined) latest = Math.max(latest, rec.stats.mono);
    if (rec.end !== undefined) latest = Math.max(latest, rec.end.mono);
    return latest;
  }
}
