// What decodeBlock returns: one consistent copy of a perf-counter IPC block, with the runtime's
// member names in camelCase (README.md has the full table). Every value is a plain number except
// the two LONGLONG time fields, which are bigints. size_t fields of a 64-bit block are checked to
// be below 2^53 while decoding (no process reaches that many bytes or objects), so they stay
// numbers without losing precision.
import type { ExtrasCounters } from './extras.js';
import type { Bitness } from './layout.js';

export interface IpcEntryInfo {
  /** Where the section starts, counted from the start of the block (the header). */
  readonly offset: number;
  readonly size: number;
}

/** IPCHeader. */
export interface IpcHeaderInfo {
  /** m_Counter: the sequence counter (even: stable, odd: a writer is inside, 0: never written). */
  readonly counter: number;
  /** m_RuntimeId: 0 means the block is free. */
  readonly runtimeId: number;
  readonly reserved1: number;
  readonly reserved2: number;
  readonly version: number;
  /** IPC_FLAG_* bits. */
  readonly flags: number;
  /** m_blockSize: header plus perf block (320 or 424), not the 2 KiB the block occupies. */
  readonly blockSize: number;
  readonly buildYear: number;
  readonly buildNumber: number;
  readonly numEntries: number;
  /** m_table: the directory; entry IPC_ENTRY_PERF_COUNTERS locates the perf block. */
  readonly entries: readonly IpcEntryInfo[];
}

/** PerfCounterIPCControlBlock's own header. */
export interface PerfBlockInfo {
  /** m_cBytes: sizeof(PerfCounterIPCControlBlock) of the writer. */
  readonly size: number;
  /** m_wAttrs: PERF_ATTR_* bits. */
  readonly attributes: number;
}

/** Perf_GC. Sizes in bytes. */
export interface GcCounters {
  readonly genCollections0: number;
  readonly genCollections1: number;
  readonly genCollections2: number;
  readonly promotedMem0: number;
  readonly promotedMem1: number;
  readonly promotedFinalizationMem: number;
  readonly processID: number;
  readonly genHeapSize0: number;
  readonly genHeapSize1: number;
  readonly genHeapSize2: number;
  readonly totalCommittedBytes: number;
  readonly totalReservedBytes: number;
  readonly lrgObjSize: number;
  readonly surviveFinalize: number;
  readonly handles: number;
  readonly alloc: number;
  readonly largeAlloc: number;
  readonly inducedGCs: number;
  readonly timeInGC: number;
  readonly timeInGCBase: number;
  readonly pinnedObj: number;
  readonly sinkBlocks: number;
}

/** Perf_Contexts. */
export interface ContextsCounters {
  readonly remoteCalls: number;
  readonly channels: number;
  readonly proxies: number;
  readonly classes: number;
  readonly objAlloc: number;
  readonly contexts: number;
}

/** Perf_Interop. */
export interface InteropCounters {
  readonly ccw: number;
  readonly stubs: number;
  readonly marshalling: number;
  readonly tlbImports: number;
  readonly tlbExports: number;
}

/** Perf_Loading. */
export interface LoadingCounters {
  readonly classesLoadedCurrent: number;
  readonly classesLoadedTotal: number;
  readonly appDomainsCurrent: number;
  readonly appDomainsTotal: number;
  readonly assembliesCurrent: number;
  readonly assembliesTotal: number;
  /** LONGLONG: an opaque 64-bit signed value, kept whole. */
  readonly timeLoading: bigint;
  readonly asmSearchLen: number;
  readonly loadFailures: number;
  readonly loaderHeapSize: number;
  readonly appDomainsUnloaded: number;
}

/** Perf_Excep. */
export interface ExceptionsCounters {
  readonly thrown: number;
  readonly filtersExecuted: number;
  readonly finallysExecuted: number;
  readonly throwToCatchStackDepth: number;
}

/** Perf_LocksAndThreads. */
export interface LocksAndThreadsCounters {
  readonly contention: number;
  readonly queueLengthCurrent: number;
  readonly queueLengthTotal: number;
  readonly currentThreadsLogical: number;
  readonly currentThreadsPhysical: number;
  readonly recognizedThreadsCurrent: number;
  readonly recognizedThreadsTotal: number;
}

/** Perf_Jit. */
export interface JitCounters {
  readonly methodsJitted: number;
  readonly ilJittedCurrent: number;
  readonly ilJittedTotal: number;
  readonly jitFailures: number;
  readonly timeInJit: number;
  readonly timeInJitBase: number;
}

/** Perf_Security. */
export interface SecurityCounters {
  readonly totalRTChecks: number;
  /** LONGLONG: the runtime calls it an unused reserved field; kept whole. */
  readonly timeAuthorize: bigint;
  readonly linkChecks: number;
  readonly timeRTchecks: number;
  readonly timeRTchecksBase: number;
  readonly stackWalkDepth: number;
}

export interface IpcBlockSnapshot {
  /** The layout the block was decoded with. */
  readonly bitness: Bitness;
  readonly header: IpcHeaderInfo;
  readonly perf: PerfBlockInfo;
  /** header.counter was even when these bytes were copied (no writer inside). */
  readonly stable: boolean;
  /** PERF_ATTR_ON: the writer is still updating the counters (the runtime clears it at shutdown). */
  readonly updating: boolean;
  readonly gc: GcCounters;
  readonly contexts: ContextsCounters;
  readonly interop: InteropCounters;
  readonly loading: LoadingCounters;
  readonly exceptions: ExceptionsCounters;
  readonly locksAndThreads: LocksAndThreadsCounters;
  readonly jit: JitCounters;
  readonly security: SecurityCounters;
  /** clrscope's own section (extras.ts), when the block has one. */
  readonly extras?: ExtrasCounters;
}
