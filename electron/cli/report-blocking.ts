// `clrscope report FILE --blocking`: the sites that block thread-pool threads, ranked, and the
// pool's starvation with its diagnosis (structs/analysis/pool-story.ts). JSON is stable:
// {"blocking":[{"site","waitingOn","waitMs","from","sampledMs","waits","waitSources","share","threads","stack"}...],
// "starvation":{...,"maxQueueLength","completedItems","blockedMs","sampledBlockedMs","runtimeWaits":{...}}}
// (the two queue figures null without POOL_GAUGE records); `from` says whether a
// site's waitMs is the runtime's own waits (WaitHandleWait, .NET 9+) or the wall samples' estimate.

import type { Recording } from '../../structs/profile/recording.js';
import { poolStory, type Starvation } from '../../structs/analysis/pool-story.js';
import type { BlockingSite, PoolWaitSummary } from '../../structs/analysis/pool-blocking.js';

export interface BlockingReport {
  blocking: (Pick<BlockingSite, 'site' | 'waitingOn' | 'waitMs' | 'from' | 'sampledMs' | 'waits' | 'waitSources' | 'share' | 'threads' | 'stack'>)[];
  starvation: Starvation & { poolWallMs: number; blockedMs: number; sampledBlockedMs: number; runtimeWaits: PoolWaitSummary; poolThreads: number };
}

export function blockingReport(rec: Recording): BlockingReport {
  const story = poolStory(rec);
  const b = story.blocking;
  return {
    blocking: b.sites.map((s) => ({
      site: s.site, waitingOn: s.waitingOn, waitMs: s.waitMs, from: s.from, sampledMs: s.sampledMs, waits: s.waits, waitSources: s.waitSources,
      share: Math.round(s.share * 1e4) / 1e4, threads: s.threads, stack: s.stack,
    })),
    starvation: { ...story.starvation, poolWallMs: b.poolWallMs, blockedMs: b.blockedMs, sampledBlockedMs: b.sampledBlockedMs, runtimeWaits: b.runtimeWaits, poolThreads: b.poolThreads },
  };
}

export function blockingText(rec: Recording): string {
  const r = blockingReport(rec);
  const s = r.starvation;
  const lines = [s.diagnosis, ''];
  if (s.poolEvents) {
    lines.push(`Pool: at most ${s.maxThreads} workers, ${s.threadsStarted} started while recording.`);
    if (s.maxQueueLength !== null && s.completedItems !== null) {
      lines.push(`Queue: up to ${s.maxQueueLength} work items waiting (System.Runtime's counters, once a second); ${s.completedItems} work items completed.`);
    }
    for (const x of s.shortages) {
      lines.push(`  short of threads ${(x.startMs / 1000).toFixed(2)}–${(x.endMs / 1000).toFixed(2)} s: ${x.injections} threads injected (${x.blocking} for blocked workers, ${x.injections - x.blocking} by the starvation gate)`);
    }
    lines.push('');
  }
  if (r.blocking.length === 0) {
    lines.push(s.poolThreads === 0 ? 'No wall samples of thread-pool threads in this recording.' : `No pool thread was seen blocked (${s.poolThreads} pool threads, ${(s.poolWallMs / 1000).toFixed(1)} s of their wall time).`);
    return lines.join('\n') + '\n';
  }
  lines.push(`Blocked pool-thread time: ${(s.blockedMs / 1000).toFixed(2)} s of ${(s.poolWallMs / 1000).toFixed(2)} s on ${s.poolThreads} pool threads.`, s.runtimeWaits.note, '');
  const header = ['wait ms', 'share', 'threads', 'from', 'site', 'waiting on'];
  const from = (b: BlockingReport['blocking'][number]): string => (b.from === 'runtime waits' ? `${b.waits} waits (${b.waitSources.join(', ')})` : 'samples');
  const body = r.blocking.map((b) => [b.waitMs.toFixed(1), `${(100 * b.share).toFixed(1)}%`, String(b.threads), from(b), b.site, b.waitingOn]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c].length)));
  const line = (cells: string[]): string => cells.map((cell, c) => (c >= 3 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd();
  lines.push(line(header), ...body.map(line), '', `Heaviest stack of ${r.blocking[0].site}:`, ...r.blocking[0].stack.map((f) => `  ${f}`));
  return lines.join('\n') + '\n';
}
