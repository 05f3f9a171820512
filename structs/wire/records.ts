// Shapes and constants of wire v1 (PROTOCOL.md), shared by the decoder and the encoder.

export const WIRE_MAGIC = 'CLRSCOPE';
export const WIRE_VERSION = 1;
export const PREAMBLE_SIZE = 16;
/** Largest `length` a reader accepts; anything above is treated as corruption, not data. */
export const MAX_RECORD_LENGTH = 1_048_576;
/** Longest string a reader accepts; writers truncate to this. */
export const MAX_STRING_BYTES = 65_535;

export const RecordType = {
  Hello: 0x01,
  Thread: 0x02,
  ThreadEnd: 0x03,
  Function: 0x04,
  Sample: 0x05,
  Stats: 0x06,
  Suspension: 0x07,
  End: 0x7f,
} as const;

/** HELLO flags (PROTOCOL.md). ApproximateCpu is set by clrscope's own writers only, never by the profiler. */
export const HelloFlags = { Cpu: 1, Wall: 2, Attached: 4, ApproximateCpu: 8 } as const;
export const SampleFlags = { Cpu: 1, Wall: 2, Incomplete: 4, Elided: 8 } as const;
export const FunctionKind = { Managed: 0, Native: 1, Synthetic: 2 } as const;
/** END reasons (PROTOCOL.md). Stopped is written by clrscope's TypeScript side only, for a stream it ended itself. */
export const EndReason = { RuntimeShutdown: 0, Detached: 1, ProfilerStopped: 2, Stopped: 3 } as const;

/**
 * u64 fields are delivered as `number`: exact below 2^53 (about 104 days of nanoseconds, or
 * any user-space address on x64); above that they are rounded to the nearest double, a
 * relative error below 2^-53. Only HELLO.unixNs (~1.7e18) needs all 64 bits, so it is a bigint.
 */
export interface HelloRecord {
  pid: number;
  flags: number;
  mono: number;
  unixNs: bigint;
  intervalNs: number;
  wallThreadsPerTick: number;
  runtimeVersion: string;
  profilerVersion: string;
}

export interface ThreadRecord {
  threadId: number;
  osTid: number;
  clrThreadId: number;
  mono: number;
  name: string;
}

export interface ThreadEndRecord {
  threadId: number;
  mono: number;
}

export interface FunctionRecord {
  functionId: number;
  kind: number;
  name: string;
  module: string;
  file: string;
}

export interface StatsRecord {
  mono: number;
  samples: number;
  droppedRingFull: number;
  droppedBufferFull: number;
  droppedWatchdog: number;
  droppedOther: number;
}

/** One runtime suspension (PROTOCOL.md, SUSPENSION). */
export interface SuspensionRecord {
  /** When RuntimeSuspendStarted came, target CLOCK_MONOTONIC ns. */
  mono: number;
  /** Until RuntimeResumeFinished: the pause the program saw. */
  durationNs: number;
  /** Until RuntimeSuspendFinished: waiting for threads to reach a safe point. */
  suspendNs: number;
  /** COR_PRF_SUSPEND_REASON (1 = GC). */
  reason: number;
  /** Highest generation collected during the pause, -1 when no GC started in it. */
  generation: number;
  /** SuspensionFlags bits. */
  flags: number;
}

export const SuspensionFlags = { Induced: 1, Aborted: 2 } as const;

export interface EndRecord {
  mono: number;
  reason: number;
}

export function recordTypeName(type: number): string {
  switch (type) {
    case RecordType.Hello: return 'HELLO';
    case RecordType.Thread: return 'THREAD';
    case RecordType.ThreadEnd: return 'THREAD_END';
    case RecordType.Function: return 'FUNCTION';
    case RecordType.Sample: return 'SAMPLE';
    case RecordType.Stats: return 'STATS';
    case RecordType.Suspension: return 'SUSPENSION';
    case RecordType.End: return 'END';
    default: return `0x${type.toString(16).padStart(2, '0')}`;
  }
}
