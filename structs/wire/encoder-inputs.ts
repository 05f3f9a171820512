// What a WireEncoder writes, as its callers give it: records whose u64 fields may come as
// numbers or bigints (a saved recording's numbers, an importer's 64-bit ticks).

import type { EndRecord, FrameRecord, OwnCost, SuspensionRecord, ThreadEndRecord } from './records.js';

/** u64 input: a number must be a non-negative integer (above 2^53 it is the double it is); or a bigint. */
export type U64 = number | bigint;

export interface HelloInput {
  pid: number;
  flags: number;
  mono: U64;
  unixNs: U64;
  intervalNs: number;
  wallThreadsPerTick: number;
  runtimeVersion: string;
  profilerVersion: string;
}

export interface ThreadInput {
  threadId: number;
  osTid: number;
  clrThreadId: U64;
  mono: U64;
  name: string;
}

export interface SampleInput {
  mono: U64;
  threadId: number;
  /** All four SampleFlags (in v2 Incomplete and Elided go with the stack). */
  flags: number;
  cpuNs: U64;
  wallNs: U64;
  /** Function ids (v1) or frame ids (v2), leaf first. */
  frames: ArrayLike<number>;
}

export interface StatsInput {
  mono: U64;
  samples: U64;
  droppedRingFull: U64;
  droppedBufferFull: U64;
  droppedWatchdog: U64;
  droppedOther: U64;
  /** Written only when given and not 0, or when `cost` is (PROTOCOL.md, STATS). */
  signalLostMono?: U64;
  /** clrscope's own cost, ns, by the names of `OwnCost` (structs/wire/records.ts). */
  cost?: Record<keyof OwnCost, U64>;
}

export interface FunctionInput {
  functionId: number;
  kind: number;
  name: string;
  /** v1: written as is. v2 without moduleId: a MODULE with this path is defined on first use (none when empty). */
  module: string;
  file: string;
  /** v2: the MODULE's id (0: none). */
  moduleId?: number;
  /** v2: the method's metadata token. */
  token?: number;
}

export interface ModuleInput {
  moduleId: number;
  kind: number;
  /** 32 hex digits (16 bytes in wire order), or empty for none. */
  mvid: string;
  path: string;
}

export interface EventInput {
  kind: number;
  mono: U64;
  threadId: number;
  /** 0: no stack. */
  stackId: number;
  /** A STRING id, 0: none. */
  labelId: number;
  value1: U64;
  /** Absent: the event has one value. */
  value2?: U64;
  /** The event's message (an exception's), a STRING id; absent or 0: none. Sent in the EVENT_MESSAGES record that follows the EVENTS record. */
  messageId?: number;
}

/** A timeline kind's record (structs/wire/timeline/) to write: its fields as numbers or bigints. */
export type TimelineInput<R extends object> = { readonly [K in keyof R]: U64 };

export type SuspensionInput = Omit<SuspensionRecord, 'mono' | 'durationNs' | 'suspendNs'> & { mono: U64; durationNs: U64; suspendNs: U64 };
export type ThreadEndInput = Omit<ThreadEndRecord, 'mono'> & { mono: U64 };
export type EndInput = Omit<EndRecord, 'mono'> & { mono: U64 };
export type FrameInput = FrameRecord;
