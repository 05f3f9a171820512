// Shapes and constants of the wire protocol, v1 and v2 (PROTOCOL.md), shared by the decoder and
// the encoder.

export const WIRE_MAGIC = 'CLRSCOPE';
/** The version writers write. */
export const WIRE_VERSION = 2;
/** The first version: every SAMPLE carries its whole stack. Readers still read it. */
export const WIRE_VERSION_1 = 1;
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
  /** v1 only: one sample with its frames. */
  Sample: 0x05,
  Stats: 0x06,
  Suspension: 0x07,
  /** v2 records from here. */
  Module: 0x09,
  Frame: 0x0a,
  Stack: 0x0b,
  StackReset: 0x0c,
  Samples: 0x0d,
  String: 0x0e,
  Events: 0x0f,
  /** An async task: its awaiter and name (async call stacks). */
  Task: 0x10,
  /** Which samples of the SAMPLES record right before it ran which task. */
  TaskSamples: 0x11,
  /** How many suspended operations samples marked by the TASK_SAMPLES record right before it stand for. */
  OperationCounts: 0x12,
  /** The messages (STRING ids) of events of the EVENTS record right before it: exceptions' messages. */
  EventMessages: 0x13,
  /** One of the runtime's own GC events (GCStart, GCHeapStats, GCSuspendEEBegin, ...), its payload's figures decoded. */
  GcEvent: 0x14,
  /** One HTTP request served (PROTOCOL.md, REQUEST). */
  Request: 0x15,
  /** One of the runtime's events that is not a GC's: the thread pool's, a thread's wait (PROTOCOL.md, RUNTIME_EVENT). */
  RuntimeEvent: 0x16,
  /** Which samples of the SAMPLES record before it were taken in which request (REQUEST's seq); PROTOCOL.md, REQUEST_SAMPLES. */
  RequestSamples: 0x17,
  /** A time the profiler listened for requests, and what it saw in it (PROTOCOL.md, REQUEST_WINDOW). */
  RequestWindow: 0x18,
  /** The thread pool's threads, queue and completed work items at a time (PROTOCOL.md, POOL_GAUGE). */
  PoolGauge: 0x19,
  /** Samples sent earlier that a request ended owning: a connection's first request, begun before its async chain had a root (PROTOCOL.md, REQUEST_BACKFILL). */
  RequestBackfill: 0x1a,
  End: 0x7f,
} as const;

/**
 * HELLO flags (PROTOCOL.md). ApproximateCpu is set by clrscope's own writers only, never by the
 * profiler. AfterLoss: the connection only says why the same process's earlier stream ended (the
 * program took that stream's descriptor): its STATS and END belong to that stream.
 */
export const HelloFlags = { Cpu: 1, Wall: 2, Attached: 4, ApproximateCpu: 8, Async: 16, AfterLoss: 32 } as const;
/** Sample flags. In v2 a sample carries Cpu and Wall; Incomplete and Elided go with its STACK. */
export const SampleFlags = { Cpu: 1, Wall: 2, Incomplete: 4, Elided: 8 } as const;
/** The flags a v2 STACK may carry. */
export const STACK_FLAGS = SampleFlags.Incomplete | SampleFlags.Elided;
export const FunctionKind = { Managed: 0, Native: 1, Synthetic: 2 } as const;
export const ModuleKind = { Managed: 0, Native: 1 } as const;
/** What a FRAME's offset is: unknown, an IL offset in the method, or a native offset from the code's start. */
export const OffsetKind = { None: 0, IL: 1, Native: 2 } as const;
/** Kinds of event samples (EVENTS); readers keep kinds they do not know. */
/**
 * Kinds of event samples. Live: sampled objects still alive after a GC (value1 bytes, value2
 * objects, both upscaled), sent in live sets each led by a LiveSnapshot on thread 0 at the same
 * time (value1 the objects in the set, value2 the samples never tracked); PROTOCOL.md, EVENTS.
 */
export const EventKind = { Allocation: 1, Contention: 2, Exception: 3, Live: 4, LiveSnapshot: 5 } as const;
/** Head bits of one event in an EVENTS record (passed to WireSink.onEvent as `flags`). */
export const EventFlags = { HasValue2: 1, HasStack: 2, HasLabel: 4 } as const;
/** Head bits of one sample in a SAMPLES record. */
export const SampleHead = {
  Cpu: 0x01,
  Wall: 0x02,
  ThreadMask: 0x0c,
  ThreadSame: 0x04,
  ThreadNext: 0x08,
  MonoSame: 0x10,
  StackSame: 0x20,
  WallPredicted: 0x40,
  Reserved: 0x80,
} as const;
/** Stack ids are 1 .. MAX_STACK_ID. */
export const MAX_STACK_ID = 0xffffff;
/** END reasons (PROTOCOL.md). Stopped is written by clrscope's TypeScript side only, for a stream it ended itself. */
export const EndReason = { RuntimeShutdown: 0, Detached: 1, ProfilerStopped: 2, Stopped: 3, ConnectionLost: 4 } as const;
/** How the stream's descriptor stopped being the profiler's (END of reason ConnectionLost). */
export const DescriptorLoss = { Closed: 1, Replaced: 2 } as const;

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
  /** v1: the module's file name. v2: empty; the module is `moduleId` (a MODULE record). */
  module: string;
  file: string;
  /** v2: the MODULE the code lives in, 0 for none. v1: 0. */
  moduleId: number;
  /** v2: the method's metadata token (managed), else 0. v1: 0. */
  token: number;
}

export interface ModuleRecord {
  moduleId: number;
  /** ModuleKind. */
  kind: number;
  /** The module's MVID as 32 hex digits of its 16 bytes in wire order (a GUID's memory layout); all zeros when unknown. */
  mvid: string;
  /** The full path the process loaded it from. */
  path: string;
}

export interface FrameRecord {
  frameId: number;
  functionId: number;
  /** OffsetKind. */
  offsetKind: number;
  offset: number;
}

export interface StringRecord {
  stringId: number;
  text: string;
}

/** An async task (TASK): the task awaiting it (0: none known) and its name (a STRING id, 0: unknown). */
export interface TaskRecord {
  taskId: number;
  awaiterId: number;
  nameId: number;
}

export interface StatsRecord {
  mono: number;
  samples: number;
  droppedRingFull: number;
  droppedBufferFull: number;
  droppedWatchdog: number;
  droppedOther: number;
  /**
   * When the profiler found its signal handler replaced by another library (target mono ns) and
   * stopped taking CPU and wall samples; absent while sampling goes on (PROTOCOL.md, STATS).
   */
  signalLostMono?: number;
  /** clrscope's own cost since the stream began; absent from older profilers' streams. */
  cost?: OwnCost;
}

/**
 * clrscope's own cost in the profiled process since its stream began, in ns (PROTOCOL.md, STATS):
 * the process's CPU, and clrscope's share of it by part. The parts on the program's threads
 * (handler, callbacks, runtime events, event stacks) are their CPU inside clrscope's code, one
 * span in eight measured; the others are the sampler thread's CPU.
 */
export interface OwnCost {
  processCpuNs: number;
  handlerNs: number;
  callbacksNs: number;
  runtimeEventsNs: number;
  eventStacksNs: number;
  symbolsNs: number;
  writerNs: number;
  samplerNs: number;
}

/** The cost fields in wire order (PROTOCOL.md, STATS). */
export const OWN_COST_FIELDS: readonly (keyof OwnCost)[] = [
  'processCpuNs', 'handlerNs', 'callbacksNs', 'runtimeEventsNs', 'eventStacksNs', 'symbolsNs', 'writerNs', 'samplerNs',
];

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

/**
 * One of the runtime's GC events (PROTOCOL.md, GC_EVENT): which one, when, on which OS thread,
 * and up to four figures of its payload, whose meaning depends on the event (GC_EVENT_FIELDS in
 * structs/wire/timeline/gc-events.ts).
 */
export interface GcEventRecord {
  /** When the runtime raised it, target CLOCK_MONOTONIC ns. */
  mono: number;
  /** The OS thread that raised it. */
  tid: number;
  /** The runtime event's id (GcEventId). */
  event: number;
  /** The event's version as the runtime wrote it. */
  version: number;
  a: number;
  b: number;
  c: number;
  d: number;
}

/**
 * One of the runtime's events that is not a GC's (PROTOCOL.md, RUNTIME_EVENT): the thread pool's
 * workers and adjustments, a thread's WaitHandleWait; which one, when, on which OS thread, and up
 * to four figures of its payload (RUNTIME_EVENTS in structs/wire/timeline/runtime-events.ts says
 * which), as GcEventRecord's fields. Its id needs 16 bits on the wire (WaitHandleWaitStart is
 * 301), which GC_EVENT's `event` has not.
 */
export type RuntimeEventRecord = GcEventRecord;

/**
 * One HTTP request an ASP.NET Core program served (PROTOCOL.md, REQUEST): when it began and ended
 * (target CLOCK_MONOTONIC ns; endMono 0 while in flight), on which OS threads, its status code, and
 * STRING ids of its method, endpoint (route pattern), trace id and span id; `seq` its number in the
 * stream, which REQUEST_SAMPLES marks samples with (0: none, a writer before it).
 */
export interface RequestRecord {
  mono: number;
  endMono: number;
  startTid: number;
  endTid: number;
  status: number;
  method: number;
  endpoint: number;
  traceId: number;
  spanId: number;
  seq: number;
}

/**
 * A time the profiler's DiagnosticSource bridge listened for requests (PROTOCOL.md,
 * REQUEST_WINDOW): from startMono to endMono (target CLOCK_MONOTONIC ns), the requests begun in
 * it (`cut` of them outlived it and are not in the stream) and the rate budget then in effect
 * (requests a second, 0: none). `pid` is no profiler's: a merge of several processes writes the
 * window's process there (0: the recording's own process, as every profiler's window reads).
 */
/**
 * The thread pool's figures as System.Runtime's counters polled them (PROTOCOL.md, POOL_GAUGE):
 * at `mono` (target CLOCK_MONOTONIC ns) it had `threads` threads and `queueLength` work items
 * waiting, and had completed `completed` since the profiler's session began (a total: two
 * records' difference is what was completed between them). `pid` as REQUEST_WINDOW's.
 */
export interface PoolGaugeRecord {
  mono: number;
  threads: number;
  queueLength: number;
  completed: number;
  pid: number;
}

export interface RequestWindowRecord {
  startMono: number;
  endMono: number;
  begun: number;
  cut: number;
  maxPerS: number;
  pid: number;
}

export interface EndRecord {
  mono: number;
  reason: number;
  /**
   * Appended to an END of reason ConnectionLost: the number of the descriptor the program closed
   * or reused, and how (DescriptorLoss); absent otherwise.
   */
  descriptor?: number;
  descriptorLoss?: number;
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
    case RecordType.Module: return 'MODULE';
    case RecordType.Frame: return 'FRAME';
    case RecordType.Stack: return 'STACK';
    case RecordType.StackReset: return 'STACK_RESET';
    case RecordType.Samples: return 'SAMPLES';
    case RecordType.String: return 'STRING';
    case RecordType.Events: return 'EVENTS';
    case RecordType.Task: return 'TASK';
    case RecordType.TaskSamples: return 'TASK_SAMPLES';
    case RecordType.OperationCounts: return 'OPERATION_COUNTS';
    case RecordType.EventMessages: return 'EVENT_MESSAGES';
    case RecordType.GcEvent: return 'GC_EVENT';
    case RecordType.Request: return 'REQUEST';
    case RecordType.RuntimeEvent: return 'RUNTIME_EVENT';
    case RecordType.RequestSamples: return 'REQUEST_SAMPLES';
    case RecordType.RequestWindow: return 'REQUEST_WINDOW';
    case RecordType.PoolGauge: return 'POOL_GAUGE';
    case RecordType.RequestBackfill: return 'REQUEST_BACKFILL';
    case RecordType.End: return 'END';
    default: return `0x${type.toString(16).padStart(2, '0')}`;
  }
}
