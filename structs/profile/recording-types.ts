// The shapes a Recording hands out: what it knows of a process's threads, modules, frames and
// meta data. Kept apart from the Recording class so readers that only name a shape (views, export
// code) need not know how a recording is stored or built.

export type { FunctionInfo } from './frame-label.js';
export type { SampleColumnViews } from './sample-columns.js';
export type { EventColumnViews } from './event-columns.js';
import type { SampleColumnViews } from './sample-columns.js';

export interface ModuleInfo {
  readonly id: number;
  /** ModuleKind. */
  readonly kind: number;
  /** The path the process loaded it from (a v1 recording knows only the file name). */
  readonly path: string;
  /** 32 hex digits; all zeros when unknown. */
  readonly mvid: string;
}

export interface FrameInfo {
  readonly id: number;
  readonly functionId: number;
  /** OffsetKind. */
  readonly offsetKind: number;
  readonly offset: number;
}



/**
 * Function id of the synthetic root frame added to incomplete stacks. Wire ids are writer
 * numbers starting low; the top u32 is the one value this reader reserves for itself.
 */
export const INCOMPLETE_STACK_FUNCTION_ID = 0xffffffff;
export const INCOMPLETE_STACK_NAME = '[incomplete stack]';

export type SampleMetric = 'cpu' | 'wall' | 'samples';

export interface RecordingMeta {
  readonly pid: number;
  readonly flags: number;
  readonly intervalNs: number;
  readonly wallThreadsPerTick: number;
  readonly runtimeVersion: string;
  readonly profilerVersion: string;
  /** Target's CLOCK_MONOTONIC at HELLO, in ns; pairs with startUnixNs to place mono times on the calendar. */
  readonly startMono: number;
  readonly startUnixNs: bigint;
  /** The profiler was attached to a running process rather than loaded at startup. */
  readonly attached: boolean;
  /** CPU values are estimates (HELLO flag ApproximateCpu): e.g. the runtime's EventPipe sample profiler counted them from samples in managed code. */
  readonly approximateCpu: boolean;
}

export interface ThreadInfo {
  readonly id: number;
  readonly osTid: number;
  readonly clrThreadId: number;
  /** The latest name the writer sent; empty when unnamed. */
  readonly name: string;
  readonly firstSeenMono: number;
  readonly lastSeenMono: number;
  readonly ended: boolean;
}

/** One .NET process of a recording that holds several (`record --children`). */
export interface ProcessInfo {
  readonly pid: number;
  /** A short name (the kernel's process name, e.g. "dotnet"); may be empty. */
  readonly name: string;
}

export type SampleVisitor = (index: number, mono: number, threadId: number, stackId: number, cpuNs: number, wallNs: number, flags: number) => void;

/** Samples from index `base` on, as column views (index i of the recording is index i - base of the views). */
export interface RecentSamples {
  readonly base: number;
  readonly columns: SampleColumnViews;
}

