// Names and numbers of the EventPipe file format (.nettrace, versions 4 and 5) and of the runtime
// events clrscope writes and reads. Sources: PerfView's NetTraceFormat_v5.md, the runtime's
// writer (src/native/eventpipe/ep-file.c, ep-block.c) and TraceEvent's parsers.

export const NETTRACE_MAGIC = 'Nettrace';
export const FAST_SERIALIZATION_SIGNATURE = '!FastSerialization.1';

/** FastSerialization tags: the bytes that frame every object. */
export const Tag = { NullReference: 1, BeginPrivateObject: 5, EndObject: 6 } as const;

/**
 * The Trace object carries version 4 in both format 4 and format 5 files (5 only adds optional
 * tags after a metadata record's fields), so 4 is the version readers see and writers write.
 */
export const TRACE_OBJECT_VERSION = 4;
/** Version of EventBlock, MetadataBlock, StackBlock and SPBlock in format 4/5. */
export const BLOCK_VERSION = 2;
/** Bytes of the Trace object's fields: SYSTEMTIME (8 × i16), sync QPC, QPC frequency, 4 × i32. */
export const TRACE_FIELDS_BYTES = 48;

export const BlockName = {
  Trace: 'Trace',
  Event: 'EventBlock',
  Metadata: 'MetadataBlock',
  Stack: 'StackBlock',
  SequencePoint: 'SPBlock',
} as const;

/** The runtime allocates its event, metadata and stack blocks at 100 KB and flushes when full. */
export const MAX_BLOCK_BYTES = 100 * 1024;
/** Size of an EventBlock/MetadataBlock header: u16 size, u16 flags, i64 min and max timestamp. */
export const EVENT_BLOCK_HEADER_BYTES = 20;
export const BlockFlags = { HeaderCompression: 1 } as const;

/** Bits of a compressed event header's first byte. */
export const HeaderFlags = {
  MetadataId: 1,
  CaptureThreadAndSequence: 2,
  ThreadId: 4,
  StackId: 8,
  ActivityId: 16,
  RelatedActivityId: 32,
  Sorted: 64,
  DataLength: 128,
} as const;

export const Provider = {
  Runtime: 'Microsoft-Windows-DotNETRuntime',
  Rundown: 'Microsoft-Windows-DotNETRuntimeRundown',
  SampleProfiler: 'Microsoft-DotNETCore-SampleProfiler',
  /** clrscope's own events: thread names and recording facts no runtime event carries. */
  Clrscope: 'Clrscope-Recording',
  /**
   * ASP.NET Core's HostingEventSource (dotnet/aspnetcore, HostingEventSource.cs). Format 4/5
   * metadata names a provider without its Guid: readers hash the name as EventSource does, to
   * 9ded64a4-414c-5251-dcf7-1e4e20c15e70.
   */
  Hosting: 'Microsoft.AspNetCore.Hosting',
} as const;

/** Event ids of Microsoft.AspNetCore.Hosting: RequestStart(method, path) and RequestStop(). */
export const HostingEvent = { RequestStart: 3, RequestStop: 4 } as const;

/** EventOpcode values of an EventSource's start/stop pair. */
export const Opcode = { Start: 1, Stop: 2 } as const;

/** The tag of a format 5 metadata record's optional opcode (after the V1 field list). */
export const METADATA_TAG_OPCODE = 1;

/** Event ids of Microsoft-Windows-DotNETRuntime. */
export const RuntimeEvent = {
  GCStart: 1,
  GCEnd: 2,
  GCRestartEEEnd: 3,
  GCRestartEEBegin: 7,
  GCSuspendEEEnd: 8,
  GCSuspendEEBegin: 9,
  GCAllocationTick: 10,
  ExceptionThrown: 80,
  ContentionStart: 81,
  ContentionStop: 91,
  MethodLoadVerbose: 143,
  MethodUnloadVerbose: 144,
  ModuleLoad: 152,
  ModuleUnload: 153,
  RuntimeInformation: 187,
} as const;

/** Event ids of Microsoft-Windows-DotNETRuntimeRundown. */
export const RundownEvent = {
  MethodDCStartVerbose: 143,
  MethodDCEndVerbose: 144,
  ModuleDCStart: 153,
  ModuleDCEnd: 154,
  RuntimeInformation: 187,
} as const;

/** Event ids of Clrscope-Recording. */
export const ClrscopeEvent = { ThreadInfo: 1, RecordingInfo: 2 } as const;

/** ThreadSample's payload: i32 type. */
export const ThreadSampleType = { Error: 0, External: 1, Managed: 2 } as const;

/** The runtime's keywords (ClrEtwAll.man): GC, Loader, JIT, NGen, Contention, Exception, Monitoring. */
export const Keyword = { GC: 0x1, Loader: 0x8, Jit: 0x10, NGen: 0x20, Contention: 0x4000, Exception: 0x8000, Monitoring: 0x200000000 } as const;
export const Level = { Error: 2, Informational: 4, Verbose: 5 } as const;

/** MethodFlags bit TraceEvent reads as "jitted". */
export const METHOD_FLAG_JITTED = 0x8;

/** ETW GCSuspendEE reasons (not the profiling API's COR_PRF_SUSPEND_REASON). */
export const EtwSuspendReason = {
  Other: 0, GC: 1, AppDomainShutdown: 2, CodePitching: 3, Shutdown: 4, Debugger: 5, GCPrep: 6, DebuggerSweep: 7,
} as const;

/** ETW GC reasons that mean "induced" (GC.Collect and friends). */
export const INDUCED_GC_REASONS: readonly number[] = [1, 7, 9, 10];

/** System.TypeCode values used in metadata field descriptions. */
export const TypeCode = { UInt32: 10, UInt64: 12, String: 18 } as const;
