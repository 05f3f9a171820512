// What the HRESULTs a .NET runtime sends back over the diagnostics IPC mean, in words a user can
// act on. Values checked against dotnet/runtime: src/native/eventpipe/ds-types.h (DS_IPC_E_*),
// src/coreclr/inc/corerror.xml (CORPROF_E_*, CORDIAGIPC_E_*), the PAL loader
// (src/coreclr/pal/src/loader/module.cpp: a failed dlopen sets ERROR_MOD_NOT_FOUND) and the
// standard COM values of winerror.h. README.md here says which code path returns which.

export interface HresultInfo {
  /** The symbolic name in the runtime's headers. */
  name: string;
  /** A clause that completes "… because …" / "…: …", lower case, no final period. */
  reason: string;
}

export const HRESULT = {
  S_OK: 0x00000000,
  E_NOTIMPL: 0x80004001,
  E_NOINTERFACE: 0x80004002,
  E_FAIL: 0x80004005,
  E_UNEXPECTED: 0x8000ffff,
  E_OUTOFMEMORY: 0x8007000e,
  E_INVALIDARG: 0x80070057,
  ERROR_MOD_NOT_FOUND: 0x8007007e,
  ERROR_PROC_NOT_FOUND: 0x8007007f,
  CLASS_E_CLASSNOTAVAILABLE: 0x80040111,
  CORPROF_E_NOT_YET_AVAILABLE: 0x8013135b,
  CORPROF_E_PROFILER_DETACHING: 0x80131367,
  CORPROF_E_PROFILER_NOT_ATTACHABLE: 0x80131368,
  CORPROF_E_PROFILER_ALREADY_ACTIVE: 0x8013136a,
  CORPROF_E_RUNTIME_UNINITIALIZED: 0x80131371,
  CORPROF_E_PROFILER_CANCEL_ACTIVATION: 0x80131375,
  CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC: 0x80131379,
  CORDIAGIPC_E_BAD_ENCODING: 0x80131384,
  CORDIAGIPC_E_UNKNOWN_COMMAND: 0x80131385,
  CORDIAGIPC_E_UNKNOWN_MAGIC: 0x80131386,
  CORDIAGIPC_E_UNKNOWN_ERROR: 0x80131387,
  COR_E_NOTSUPPORTED: 0x80131515,
} as const;

const TABLE = new Map<number, HresultInfo>([
  [HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE, { name: 'CORPROF_E_PROFILER_ALREADY_ACTIVE', reason: 'another profiler is already loaded in it (an APM agent, a debugger\'s profiler or clrscope itself), and a .NET process takes only one' }],
  [HRESULT.CORPROF_E_PROFILER_NOT_ATTACHABLE, { name: 'CORPROF_E_PROFILER_NOT_ATTACHABLE', reason: 'the profiler library does not support attaching to a running process (it needs ICorProfilerCallback3 and InitializeForAttach)' }],
  [HRESULT.CORPROF_E_PROFILER_CANCEL_ACTIVATION, { name: 'CORPROF_E_PROFILER_CANCEL_ACTIVATION', reason: 'the profiler declined to run in this process' }],
  [HRESULT.CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC, { name: 'CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC', reason: 'a background garbage collection was still running when the attach timeout ran out; try again, or with a longer timeout' }],
  [HRESULT.CORPROF_E_PROFILER_DETACHING, { name: 'CORPROF_E_PROFILER_DETACHING', reason: 'a profiler is still detaching from it; try again in a moment' }],
  [HRESULT.CORPROF_E_RUNTIME_UNINITIALIZED, { name: 'CORPROF_E_RUNTIME_UNINITIALIZED', reason: 'its runtime has not finished starting, or is shutting down' }],
  [HRESULT.CORPROF_E_NOT_YET_AVAILABLE, { name: 'CORPROF_E_NOT_YET_AVAILABLE', reason: 'its runtime is not running yet (it may be paused at startup, waiting for a diagnostic port to resume it)' }],
  [HRESULT.CORDIAGIPC_E_BAD_ENCODING, { name: 'CORDIAGIPC_E_BAD_ENCODING', reason: 'the runtime could not decode clrscope\'s request (a clrscope bug: please report it)' }],
  [HRESULT.CORDIAGIPC_E_UNKNOWN_COMMAND, { name: 'CORDIAGIPC_E_UNKNOWN_COMMAND', reason: 'its runtime does not know this command (a .NET older than the command, or a runtime built without it)' }],
  [HRESULT.CORDIAGIPC_E_UNKNOWN_MAGIC, { name: 'CORDIAGIPC_E_UNKNOWN_MAGIC', reason: 'its runtime does not speak this version of the diagnostics protocol' }],
  [HRESULT.CORDIAGIPC_E_UNKNOWN_ERROR, { name: 'CORDIAGIPC_E_UNKNOWN_ERROR', reason: 'the runtime\'s diagnostics server failed' }],
  [HRESULT.COR_E_NOTSUPPORTED, { name: 'COR_E_NOTSUPPORTED', reason: 'its runtime was built without profiler support (NativeAOT, for example)' }],
  [HRESULT.ERROR_MOD_NOT_FOUND, { name: 'ERROR_MOD_NOT_FOUND', reason: 'the runtime could not load the profiler library (the file is missing or unreadable for that process, built for another architecture, or lacks a library it needs)' }],
  [HRESULT.ERROR_PROC_NOT_FOUND, { name: 'ERROR_PROC_NOT_FOUND', reason: 'the profiler library does not export DllGetClassObject' }],
  [HRESULT.CLASS_E_CLASSNOTAVAILABLE, { name: 'CLASS_E_CLASSNOTAVAILABLE', reason: 'the profiler library does not provide the requested CLSID' }],
  [HRESULT.E_NOINTERFACE, { name: 'E_NOINTERFACE', reason: 'the profiler does not implement ICorProfilerCallback2' }],
  [HRESULT.E_NOTIMPL, { name: 'E_NOTIMPL', reason: 'the operation is not implemented' }],
  [HRESULT.E_OUTOFMEMORY, { name: 'E_OUTOFMEMORY', reason: 'the process ran out of memory' }],
  [HRESULT.E_INVALIDARG, { name: 'E_INVALIDARG', reason: 'the runtime or the profiler rejected an argument' }],
  [HRESULT.E_UNEXPECTED, { name: 'E_UNEXPECTED', reason: 'an unexpected failure happened (a profiler that throws while it is created ends this way)' }],
  [HRESULT.E_FAIL, { name: 'E_FAIL', reason: 'the runtime reported an unspecified failure' }],
]);

/** "0x8013136A": eight upper-case hex digits, as the runtime's headers write them. */
export function formatHresult(hresult: number): string {
  return `0x${(hresult >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
}

/** The known meaning of an HRESULT, or undefined. Accepts signed (int32) and unsigned values. */
export function hresultInfo(hresult: number): HresultInfo | undefined {
  return TABLE.get(hresult >>> 0);
}

/**
 * "another profiler is already loaded in it … (CORPROF_E_PROFILER_ALREADY_ACTIVE, 0x8013136A)";
 * for an unknown value "error 0x80131234" (with the Win32 error number for 0x8007xxxx values).
 */
export function describeHresult(hresult: number): string {
  const info = hresultInfo(hresult);
  if (info !== undefined) return `${info.reason} (${info.name}, ${formatHresult(hresult)})`;
  const u = hresult >>> 0;
  if ((u & 0xffff0000) >>> 0 === 0x80070000) return `error ${formatHresult(u)} (operating system error ${u & 0xffff})`;
  return `error ${formatHresult(u)}`;
}
