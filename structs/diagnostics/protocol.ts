// The .NET diagnostics IPC protocol's constants and message shapes, as the runtime implements
// them (README.md here lists the sources and where the published description differs).

/** "DOTNET_IPC_V1" plus its NUL: the first 14 bytes of every request and reply. */
export const IPC_MAGIC = 'DOTNET_IPC_V1\0';
export const IPC_MAGIC_LENGTH = 14;
/** magic (14) + u16 size + u8 command set + u8 command id + u16 reserved. */
export const IPC_HEADER_SIZE = 20;
/** The header's size field is a u16 and counts the header too. */
export const IPC_MAX_MESSAGE_SIZE = 0xffff;
export const GUID_SIZE = 16;

export const CommandSet = {
  Dump: 0x01,
  EventPipe: 0x02,
  Profiler: 0x03,
  Process: 0x04,
  Server: 0xff,
} as const;

export const ProcessCommand = {
  ProcessInfo: 0x00,
  ResumeRuntime: 0x01,
  ProcessEnvironment: 0x02,
  ProcessInfo2: 0x04,
  /** .NET 8+: payload u32 PerfMapType (3: the perf map alone); GC-AND-STUBS-STUDY.md section (c). */
  EnablePerfMap: 0x05,
  DisablePerfMap: 0x06,
} as const;

export const ProfilerCommand = {
  AttachProfiler: 0x01,
  StartupProfiler: 0x02,
} as const;

/** Command ids of replies (command set Server). */
export const ServerResponse = {
  OK: 0x00,
  Error: 0xff,
} as const;

export interface IpcHeader {
  /** Total message size in bytes, header included. */
  size: number;
  commandSet: number;
  commandId: number;
  reserved: number;
}

/** A reply: OK with its command-specific payload, or an error with the runtime's HRESULT. */
export type IpcReply =
  | { kind: 'ok'; header: IpcHeader; payload: Uint8Array }
  | { kind: 'error'; header: IpcHeader; hresult: number };

/** The ProcessInfo (0x04/0x00) reply payload. */
export interface ProcessInfo {
  pid: number;
  /** The runtime's random instance id, formatted like .NET's Guid.ToString(). */
  runtimeCookie: string;
  /**
   * Linux: the executable's full path and the arguments, joined by spaces; for
   * `dotnet app/App.dll --port 5000` "/usr/share/dotnet/dotnet /home/me/app/App.dll --port 5000"
   * (the app's path made absolute too). Windows: GetCommandLineW().
   */
  commandLine: string;
  /** "Linux", "Windows", "macOS" or "Unknown". */
  os: string;
  /** "x64", "x86", "arm32", "arm64" or "Unknown". */
  arch: string;
}

/** The ProcessInfo2 (0x04/0x04) reply payload: ProcessInfo plus two strings (.NET 6 and later). */
export interface ProcessInfo2 extends ProcessInfo {
  /** Assembly.GetEntryAssembly().GetName().Name in the target; empty when there is none. */
  managedEntrypointAssemblyName: string;
  /** The CLR's product version, e.g. "10.0.12" (may carry a prerelease label). */
  clrProductVersion: string;
}

/** The AttachProfiler (0x03/0x01) request. */
export interface AttachProfilerRequest {
  /** The profiler's CLSID as text, "{03FD9B91-24D7-4053-BF50-EAA94807A91B}" (braces optional). */
  clsid: string;
  /** The profiler library's path as the target process sees it. */
  path: string;
  /** Passed to the profiler's InitializeForAttach as is; a string is sent as UTF-8 without a NUL. */
  clientData?: Uint8Array | string;
  /**
   * The runtime's attach timeout in milliseconds (u32): how long it waits for a running
   * background GC to finish before giving up with CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC.
   */
  timeoutMs: number;
}

export const EventPipeCommand = {
  StopTracing: 0x01,
  CollectTracing: 0x02,
  CollectTracing2: 0x03,
  CollectTracing3: 0x04,
  CollectTracing4: 0x05,
  CollectTracing5: 0x06,
} as const;

/** CollectTracing's serialization format: 1 is the nettrace stream (format 4, what clrscope reads). */
export const EventPipeFormat = { NetPerf: 0, NetTrace: 1 } as const;

/** EventPipe levels (the runtime rejects anything above Verbose). */
export const EventLevel = { LogAlways: 0, Critical: 1, Error: 2, Warning: 3, Informational: 4, Verbose: 5 } as const;

/** One provider of an EventPipe session, as CollectTracing carries it. */
export interface EventPipeProviderConfig {
  /** e.g. "Microsoft-Windows-DotNETRuntime". */
  name: string;
  /** u64 keyword mask. */
  keywords: bigint;
  /** EventLevel, 0..5. */
  level: number;
  /** The provider's arguments, "Key=Value;Key2=Value2" (e.g. "EventCounterIntervalSec=1"); absent = none. */
  filterData?: string;
}

/** The CollectTracing2 (0x02/0x03) request. */
export interface CollectTracing2Request {
  /** Size of the session's buffer in the target, MiB (at least 1). */
  circularBufferMB: number;
  /** EventPipeFormat; clrscope always asks for NetTrace. */
  format: number;
  /** Whether the runtime writes its rundown (every loaded method and module) when the session stops. */
  requestRundown: boolean;
  providers: readonly EventPipeProviderConfig[];
}
