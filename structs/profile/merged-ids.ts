// What makes several processes one recording, whether they are merged after the fact from whole
// recordings (merge-processes.ts, `record --children`) or live as their streams arrive
// (structs/formats/clrscope-file/process-tree-stream.ts, the workstation): one id per definition
// that processes share (the same module, method, frame or string), the "[pid name] " prefix of
// each thread's name, and the recording's STATS as every process's summed. Both merges take these
// from here, so a file merged live reads the same as one merged at the end.

import type { OwnCost, StatsRecord } from '../wire/records.js';
import { sumOwnCosts } from './own-cost.js';
import type { ProcessInfo } from './recording-types.js';

/**
 * One kind of definition (module, function, frame, string) across processes: a definition every
 * process shares (the same method of the same module, as a parent and a child running the same
 * dll or the framework do) gets one id, so views that merge by method merge across processes.
 */
export class MergedIds {
  private readonly byKey = new Map<string, number>();
  private next = 1;

  /** The merged id for `key`, and whether it is new (then the caller defines it). */
  intern(key: string): [number, boolean] {
    const known = this.byKey.get(key);
    if (known !== undefined) return [known, false];
    const id = this.next++;
    this.byKey.set(key, id);
    return [id, true];
  }

  /** A definition kept under its own id (the live merge's first process): later ones are numbered above it. */
  adopt(key: string, id: number): void {
    if (!this.byKey.has(key)) this.byKey.set(key, id);
    if (id >= this.next) this.next = id + 1;
  }
}

/** What makes two processes' modules one: kind, path and MVID. */
export function moduleKey(m: { kind: number; path: string; mvid: string }): string {
  return JSON.stringify([m.kind, m.path, m.mvid]);
}

/** What makes two processes' functions one, with `moduleId` already in the merged ids. */
export function functionKey(f: { kind: number; name: string; module: string; moduleId: number; file: string; token: number }): string {
  return JSON.stringify([f.kind, f.name, f.module, f.moduleId, f.file, f.token]);
}

/** What makes two processes' frames one, with `functionId` already in the merged ids. */
export function frameKey(functionId: number, offsetKind: number, offset: number): string {
  return `${functionId}:${offsetKind}:${offset}`;
}

/** "[1234 dotnet]": what a process's thread names start with. */
export function processPrefix(process: ProcessInfo): string {
  return process.name === '' ? `[${process.pid}]` : `[${process.pid} ${process.name}]`;
}

/** A thread's name in a recording of several processes: "[1234 dotnet] Main", or its OS id when it has no name. */
export function processThreadName(process: ProcessInfo, name: string, osTid: number): string {
  return `${processPrefix(process)} ${name !== '' ? name : `thread ${osTid}`}`;
}

/** The earliest time any process stopped sampling because its signal handler was replaced. */
export function earliestSignalLoss(stats: readonly StatsRecord[]): { signalLostMono?: number } {
  const lost = stats.map((s) => s.signalLostMono).filter((m): m is number => m !== undefined);
  return lost.length > 0 ? { signalLostMono: Math.min(...lost) } : {};
}

/** Every process's latest STATS as the recording's: counts summed, at the latest time. */
export function summedStats(stats: readonly StatsRecord[]): StatsRecord {
  return {
    mono: stats.reduce((m, s) => Math.max(m, s.mono), 0),
    samples: stats.reduce((n, s) => n + s.samples, 0),
    droppedRingFull: stats.reduce((n, s) => n + s.droppedRingFull, 0),
    droppedBufferFull: stats.reduce((n, s) => n + s.droppedBufferFull, 0),
    droppedWatchdog: stats.reduce((n, s) => n + s.droppedWatchdog, 0),
    droppedOther: stats.reduce((n, s) => n + s.droppedOther, 0),
    ...earliestSignalLoss(stats),
    ...summedCost(stats),
  };
}

/** The processes' own costs summed (clrscope's cost in every process it recorded), when any has one. */
export function summedCost(stats: readonly StatsRecord[]): { cost?: OwnCost } {
  const cost = sumOwnCosts(stats.map((s) => s.cost));
  return cost !== undefined ? { cost } : {};
}
