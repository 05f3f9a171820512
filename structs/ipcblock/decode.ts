// A pure decoder: bytes of one perf-counter IPC block (at least the header plus the perf block;
// a whole 2 KiB block is fine) in, a typed snapshot out, or one IpcBlockError sentence saying what
// is wrong. It never reads shared memory itself: the reader copies a block under the sequence
// lock and hands the copy here.
import { decodeExtras } from './extras.js';
import { IpcBlockError } from './ipc-block-error.js';
import {
  type Bitness,
  type IpcLayout,
  type SectionKey,
  IPC_BLOCK_SIZE,
  IPC_BLOCK_VERSION,
  IPC_EMPTY_ENTRY_OFFSET,
  IPC_ENTRY_COUNT,
  IPC_ENTRY_PERF_COUNTERS,
  IPC_FLAG_INITIALIZED,
  IPC_FLAG_USES_FLAGS,
  IPC_FLAG_X86,
  PERF_ATTR_GLOBAL,
  PERF_ATTR_ON,
  SECTIONS,
  counterSlots,
  headerOffset,
  ipcLayout,
} from './layout.js';
import type {
  ContextsCounters,
  ExceptionsCounters,
  GcCounters,
  InteropCounters,
  IpcBlockSnapshot,
  IpcEntryInfo,
  IpcHeaderInfo,
  JitCounters,
  LoadingCounters,
  LocksAndThreadsCounters,
  SecurityCounters,
} from './snapshot.js';

export { IpcBlockError, type IpcBlockErrorKind } from './ipc-block-error.js';
export type * from './snapshot.js';

// Header member offsets, from koffi (the header is the same in both bitnesses).
const AT = {
  counter: headerOffset('m_Counter'),
  runtimeId: headerOffset('m_RuntimeId'),
  reserved1: headerOffset('m_Reserved1'),
  reserved2: headerOffset('m_Reserved2'),
  version: headerOffset('m_Version'),
  flags: headerOffset('m_Flags'),
  blockSize: headerOffset('m_blockSize'),
  buildYear: headerOffset('m_BuildYear'),
  buildNumber: headerOffset('m_BuildNumber'),
  numEntries: headerOffset('m_numEntries'),
  table: headerOffset('m_table'),
};
const HEADER_SIZE = ipcLayout(64).headerSize;
const ENTRY_SIZE = 8;
const KNOWN_FLAGS = IPC_FLAG_USES_FLAGS | IPC_FLAG_INITIALIZED | IPC_FLAG_X86;
const KNOWN_ATTRS = PERF_ATTR_ON | PERF_ATTR_GLOBAL;
// A header listing more entries than fit in a block cannot be real.
const MAX_PLAUSIBLE_ENTRIES = (IPC_BLOCK_SIZE - HEADER_SIZE) / ENTRY_SIZE;

// Making a DataView costs more than decoding a section, and a reader usually hands over the same
// copy buffer on every refresh, so the last view is kept (it never outlives its meaning: it is
// only reused for the very same Uint8Array over the same buffer).
let lastBytes: Uint8Array | undefined;
let lastView: DataView | undefined;

function viewOf(bytes: Uint8Array): DataView {
  if (lastBytes === bytes && lastView !== undefined && lastView.buffer === bytes.buffer
    && lastView.byteOffset === bytes.byteOffset && lastView.byteLength === bytes.byteLength) {
    return lastView;
  }
  lastBytes = bytes;
  lastView = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return lastView;
}

/**
 * The IPCHeader at the start of `bytes`, unchecked (only its length is). The directory lists at
 * most IPC_ENTRY_COUNT entries, however many the header claims.
 */
export function readHeader(bytes: Uint8Array): IpcHeaderInfo {
  if (bytes.length < HEADER_SIZE) {
    throw new IpcBlockError('truncated', `The IPC block is truncated: ${bytes.length} bytes were given, but its header alone needs ${HEADER_SIZE}.`);
  }
  const v = viewOf(bytes);
  const numEntries = v.getUint32(AT.numEntries, true);
  const entries: IpcEntryInfo[] = [];
  for (let i = 0; i < Math.min(numEntries, IPC_ENTRY_COUNT); i++) {
    const at = AT.table + i * ENTRY_SIZE;
    entries.push({ offset: v.getUint32(at, true), size: v.getUint32(at + 4, true) });
  }
  return {
    counter: v.getInt32(AT.counter, true),
    runtimeId: v.getUint32(AT.runtimeId, true),
    reserved1: v.getUint32(AT.reserved1, true),
    reserved2: v.getUint32(AT.reserved2, true),
    version: v.getUint16(AT.version, true),
    flags: v.getUint16(AT.flags, true),
    blockSize: v.getUint32(AT.blockSize, true),
    buildYear: v.getUint16(AT.buildYear, true),
    buildNumber: v.getUint16(AT.buildNumber, true),
    numEntries,
    entries,
  };
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/** Checks that hold for either bitness: owner, version, directory size. */
function checkCommon(h: IpcHeaderInfo): void {
  if (h.runtimeId === 0) {
    throw new IpcBlockError('unused', h.counter === 0
      ? 'The IPC block is empty: no runtime has ever written it (its RuntimeId and sequence counter are 0).'
      : 'The IPC block is not in use: its RuntimeId is 0, so no runtime owns it.');
  }
  if (h.version !== IPC_BLOCK_VERSION) {
    const implausible = (h.flags & ~KNOWN_FLAGS) !== 0 || h.blockSize === 0 || h.blockSize > IPC_BLOCK_SIZE
      || h.numEntries === 0 || h.numEntries > MAX_PLAUSIBLE_ENTRIES;
    if (implausible) {
      throw new IpcBlockError('corrupt', `These bytes are not a perf-counter IPC block: the header holds version ${h.version}, flags ${hex(h.flags)}, block size ${h.blockSize} and ${h.numEntries} directory entries.`);
    }
    throw new IpcBlockError('wrong-version', `The IPC block has version ${h.version}, but this reader understands only version ${IPC_BLOCK_VERSION} (the .NET Framework 4.x layout).`);
  }
  if ((h.flags & ~KNOWN_FLAGS) !== 0) {
    throw new IpcBlockError('corrupt', `The IPC header has flags ${hex(h.flags)}, which include bits no runtime sets.`);
  }
  if (h.numEntries !== IPC_ENTRY_COUNT) {
    throw new IpcBlockError('corrupt', `The IPC header lists ${h.numEntries} directory entries, but a version ${IPC_BLOCK_VERSION} block has exactly ${IPC_ENTRY_COUNT}.`);
  }
}

/** 32 or 64 when the header's X86 flag is meaningful, else undefined. */
function flaggedBitness(h: IpcHeaderInfo): Bitness | undefined {
  if ((h.flags & IPC_FLAG_USES_FLAGS) === 0) return undefined;
  return (h.flags & IPC_FLAG_X86) !== 0 ? 32 : 64;
}

/** The bitness whose sizes the header carries, or undefined when it carries neither's. */
function sizedBitness(h: IpcHeaderInfo): Bitness | undefined {
  const entry = h.entries[IPC_ENTRY_PERF_COUNTERS];
  for (const b of [32, 64] as const) {
    const l = ipcLayout(b);
    if (h.blockSize === l.blockSize && entry.size === l.perfSize) return b;
  }
  return undefined;
}

/** Says which layout wrote the block, from the header alone. */
function checkBitness(h: IpcHeaderInfo, bitness: Bitness): void {
  const layout = ipcLayout(bitness);
  const other: Bitness = bitness === 32 ? 64 : 32;
  const otherLayout = ipcLayout(other);
  const entry = h.entries[IPC_ENTRY_PERF_COUNTERS];
  const sized = sizedBitness(h);
  const flagged = flaggedBitness(h);
  if (sized === bitness && (flagged === undefined || flagged === bitness)) return;
  if (sized === other) {
    const flag = flagged === other && other === 32 ? ', x86 flag set' : '';
    throw new IpcBlockError('wrong-bitness', `This is a ${other}-bit IPC block (block size ${h.blockSize}, perf section ${entry.size} bytes${flag}), but it was read with the ${bitness}-bit layout, which expects ${layout.blockSize} and ${layout.perfSize}.`);
  }
  if (h.blockSize !== layout.blockSize) {
    throw new IpcBlockError('corrupt', `The IPC header gives a block size of ${h.blockSize} bytes, but a ${bitness}-bit block has ${layout.blockSize} (a ${other}-bit one ${otherLayout.blockSize}).`);
  }
  if (entry.size !== layout.perfSize) {
    throw new IpcBlockError('corrupt', `The IPC directory gives the perf-counter section ${entry.size} bytes, but a ${bitness}-bit one has ${layout.perfSize}.`);
  }
  throw new IpcBlockError('corrupt', `The IPC header's x86 flag says ${String(flagged)}-bit, but its sizes say ${bitness}-bit.`);
}

/** The directory entry of the perf block must lie inside the block, after the header. */
function checkEntry(h: IpcHeaderInfo, layout: IpcLayout): IpcEntryInfo {
  const entry = h.entries[IPC_ENTRY_PERF_COUNTERS];
  if (entry.offset === IPC_EMPTY_ENTRY_OFFSET) {
    throw new IpcBlockError('corrupt', 'The IPC directory has no perf-counter section (its entry is empty).');
  }
  const end = entry.offset + entry.size;
  if (entry.offset < HEADER_SIZE || end > IPC_BLOCK_SIZE) {
    throw new IpcBlockError('corrupt', `The IPC directory puts the perf-counter section at bytes ${entry.offset} to ${end}, outside the ${IPC_BLOCK_SIZE}-byte block after its ${HEADER_SIZE}-byte header.`);
  }
  if (entry.offset % layout.perfAlign !== 0) {
    throw new IpcBlockError('corrupt', `The IPC directory puts the perf-counter section at byte ${entry.offset}, which is not ${layout.perfAlign}-byte aligned as a ${layout.bitness}-bit writer places it.`);
  }
  return entry;
}

/**
 * The bitness of the process that wrote the block, from its header: the header's block size and
 * perf-section size (and the x86 flag, when the header uses flags) differ between the two.
 */
export function detectBitness(bytes: Uint8Array): Bitness {
  const h = readHeader(bytes);
  checkCommon(h);
  const sized = sizedBitness(h);
  const flagged = flaggedBitness(h);
  if (sized !== undefined && (flagged === undefined || flagged === sized)) return sized;
  if (sized !== undefined) {
    throw new IpcBlockError('corrupt', `The IPC header's x86 flag says ${String(flagged)}-bit, but its sizes say ${sized}-bit.`);
  }
  const entry = h.entries[IPC_ENTRY_PERF_COUNTERS];
  throw new IpcBlockError('corrupt', `The IPC header gives a block size of ${h.blockSize} and a perf section of ${entry.size} bytes, which match neither a 32-bit block (${ipcLayout(32).blockSize} and ${ipcLayout(32).perfSize}) nor a 64-bit one (${ipcLayout(64).blockSize} and ${ipcLayout(64).perfSize}).`);
}

// ---- Reading the counters ----
//
// Each section is built by one object literal: a fixed shape is about forty times faster to
// create than an object filled key by key, and the compiler checks every literal against its
// interface. The offsets come from koffi (counterSlots), per bitness.

type OffsetsOf<T> = { readonly [F in keyof T]: number };
interface Offsets {
  readonly gc: OffsetsOf<GcCounters>;
  readonly contexts: OffsetsOf<ContextsCounters>;
  readonly interop: OffsetsOf<InteropCounters>;
  readonly loading: OffsetsOf<LoadingCounters>;
  readonly exceptions: OffsetsOf<ExceptionsCounters>;
  readonly locksAndThreads: OffsetsOf<LocksAndThreadsCounters>;
  readonly jit: OffsetsOf<JitCounters>;
  readonly security: OffsetsOf<SecurityCounters>;
}

const offsetCache = new Map<Bitness, Offsets>();

function offsetsFor(bitness: Bitness): Offsets {
  let o = offsetCache.get(bitness);
  if (o === undefined) {
    const bySection = {} as Record<SectionKey, Record<string, number>>;
    for (const s of SECTIONS) bySection[s.key] = {};
    for (const slot of counterSlots(bitness)) bySection[slot.field.section][slot.field.name] = slot.offset;
    o = bySection as unknown as Offsets;
    offsetCache.set(bitness, o);
  }
  return o;
}

/** Reads a size_t: 4 bytes, or 8 bytes that must stay below 2^53. */
type SizeReader = (v: DataView, at: number, name: string) => number;

const readSize32: SizeReader = (v, at) => v.getUint32(at, true);

// 2^53 / 2^32: a high half at or above this cannot be held exactly as a number.
const UNSAFE_HIGH = 0x200000;

const readSize64: SizeReader = (v, at, name) => {
  const low = v.getUint32(at, true);
  const high = v.getUint32(at + 4, true);
  if (high >= UNSAFE_HIGH) {
    throw new IpcBlockError('corrupt', `The perf-counter field ${name} holds ${v.getBigUint64(at, true)}, more than any process reaches, so the block is corrupt.`);
  }
  return high * 0x100000000 + low;
};

function gcOf(v: DataView, p: number, o: OffsetsOf<GcCounters>, size: SizeReader): GcCounters {
  return {
    genCollections0: size(v, p + o.genCollections0, 'gc.genCollections0'),
    genCollections1: size(v, p + o.genCollections1, 'gc.genCollections1'),
    genCollections2: size(v, p + o.genCollections2, 'gc.genCollections2'),
    promotedMem0: size(v, p + o.promotedMem0, 'gc.promotedMem0'),
    promotedMem1: size(v, p + o.promotedMem1, 'gc.promotedMem1'),
    promotedFinalizationMem: size(v, p + o.promotedFinalizationMem, 'gc.promotedFinalizationMem'),
    processID: size(v, p + o.processID, 'gc.processID'),
    genHeapSize0: size(v, p + o.genHeapSize0, 'gc.genHeapSize0'),
    genHeapSize1: size(v, p + o.genHeapSize1, 'gc.genHeapSize1'),
    genHeapSize2: size(v, p + o.genHeapSize2, 'gc.genHeapSize2'),
    totalCommittedBytes: size(v, p + o.totalCommittedBytes, 'gc.totalCommittedBytes'),
    totalReservedBytes: size(v, p + o.totalReservedBytes, 'gc.totalReservedBytes'),
    lrgObjSize: size(v, p + o.lrgObjSize, 'gc.lrgObjSize'),
    surviveFinalize: size(v, p + o.surviveFinalize, 'gc.surviveFinalize'),
    handles: size(v, p + o.handles, 'gc.handles'),
    alloc: size(v, p + o.alloc, 'gc.alloc'),
    largeAlloc: size(v, p + o.largeAlloc, 'gc.largeAlloc'),
    inducedGCs: size(v, p + o.inducedGCs, 'gc.inducedGCs'),
    timeInGC: v.getUint32(p + o.timeInGC, true),
    timeInGCBase: v.getUint32(p + o.timeInGCBase, true),
    pinnedObj: size(v, p + o.pinnedObj, 'gc.pinnedObj'),
    sinkBlocks: size(v, p + o.sinkBlocks, 'gc.sinkBlocks'),
  };
}

function contextsOf(v: DataView, p: number, o: OffsetsOf<ContextsCounters>): ContextsCounters {
  return {
    remoteCalls: v.getUint32(p + o.remoteCalls, true),
    channels: v.getUint32(p + o.channels, true),
    proxies: v.getUint32(p + o.proxies, true),
    classes: v.getUint32(p + o.classes, true),
    objAlloc: v.getUint32(p + o.objAlloc, true),
    contexts: v.getUint32(p + o.contexts, true),
  };
}

function interopOf(v: DataView, p: number, o: OffsetsOf<InteropCounters>): InteropCounters {
  return {
    ccw: v.getUint32(p + o.ccw, true),
    stubs: v.getUint32(p + o.stubs, true),
    marshalling: v.getUint32(p + o.marshalling, true),
    tlbImports: v.getUint32(p + o.tlbImports, true),
    tlbExports: v.getUint32(p + o.tlbExports, true),
  };
}

function loadingOf(v: DataView, p: number, o: OffsetsOf<LoadingCounters>, size: SizeReader): LoadingCounters {
  return {
    classesLoadedCurrent: v.getUint32(p + o.classesLoadedCurrent, true),
    classesLoadedTotal: v.getUint32(p + o.classesLoadedTotal, true),
    appDomainsCurrent: v.getUint32(p + o.appDomainsCurrent, true),
    appDomainsTotal: v.getUint32(p + o.appDomainsTotal, true),
    assembliesCurrent: v.getUint32(p + o.assembliesCurrent, true),
    assembliesTotal: v.getUint32(p + o.assembliesTotal, true),
    timeLoading: v.getBigInt64(p + o.timeLoading, true),
    asmSearchLen: v.getUint32(p + o.asmSearchLen, true),
    loadFailures: v.getUint32(p + o.loadFailures, true),
    loaderHeapSize: size(v, p + o.loaderHeapSize, 'loading.loaderHeapSize'),
    appDomainsUnloaded: v.getUint32(p + o.appDomainsUnloaded, true),
  };
}

function exceptionsOf(v: DataView, p: number, o: OffsetsOf<ExceptionsCounters>): ExceptionsCounters {
  return {
    thrown: v.getUint32(p + o.thrown, true),
    filtersExecuted: v.getUint32(p + o.filtersExecuted, true),
    finallysExecuted: v.getUint32(p + o.finallysExecuted, true),
    throwToCatchStackDepth: v.getUint32(p + o.throwToCatchStackDepth, true),
  };
}

function locksAndThreadsOf(v: DataView, p: number, o: OffsetsOf<LocksAndThreadsCounters>): LocksAndThreadsCounters {
  return {
    contention: v.getUint32(p + o.contention, true),
    queueLengthCurrent: v.getUint32(p + o.queueLengthCurrent, true),
    queueLengthTotal: v.getUint32(p + o.queueLengthTotal, true),
    currentThreadsLogical: v.getUint32(p + o.currentThreadsLogical, true),
    currentThreadsPhysical: v.getUint32(p + o.currentThreadsPhysical, true),
    recognizedThreadsCurrent: v.getUint32(p + o.recognizedThreadsCurrent, true),
    recognizedThreadsTotal: v.getUint32(p + o.recognizedThreadsTotal, true),
  };
}

function jitOf(v: DataView, p: number, o: OffsetsOf<JitCounters>): JitCounters {
  return {
    methodsJitted: v.getUint32(p + o.methodsJitted, true),
    ilJittedCurrent: v.getUint32(p + o.ilJittedCurrent, true),
    ilJittedTotal: v.getUint32(p + o.ilJittedTotal, true),
    jitFailures: v.getUint32(p + o.jitFailures, true),
    timeInJit: v.getUint32(p + o.timeInJit, true),
    timeInJitBase: v.getUint32(p + o.timeInJitBase, true),
  };
}

function securityOf(v: DataView, p: number, o: OffsetsOf<SecurityCounters>): SecurityCounters {
  return {
    totalRTChecks: v.getUint32(p + o.totalRTChecks, true),
    timeAuthorize: v.getBigInt64(p + o.timeAuthorize, true),
    linkChecks: v.getUint32(p + o.linkChecks, true),
    timeRTchecks: v.getUint32(p + o.timeRTchecks, true),
    timeRTchecksBase: v.getUint32(p + o.timeRTchecksBase, true),
    stackWalkDepth: v.getUint32(p + o.stackWalkDepth, true),
  };
}

/**
 * Decodes one block written by a `bitness`-bit process. Validates the header (owner, version,
 * sizes, bitness), the directory entry that locates the perf block, the perf block's own size and
 * every 64-bit count, and throws an IpcBlockError with one sentence naming what is wrong.
 */
export function decodeBlock(bytes: Uint8Array, bitness: Bitness): IpcBlockSnapshot {
  const layout = ipcLayout(bitness);
  if (bytes.length < HEADER_SIZE) {
    throw new IpcBlockError('truncated', `The IPC block is truncated: ${bytes.length} bytes were given, but a ${bitness}-bit block needs ${layout.blockSize}.`);
  }
  const header = readHeader(bytes);
  checkCommon(header);
  checkBitness(header, bitness);
  if ((header.flags & IPC_FLAG_USES_FLAGS) !== 0 && (header.flags & IPC_FLAG_INITIALIZED) === 0) {
    throw new IpcBlockError('unused', 'The IPC block is still being set up: its initialized flag is not set yet.');
  }
  const entry = checkEntry(header, layout);
  const needed = Math.max(header.blockSize, entry.offset + entry.size);
  if (bytes.length < needed) {
    throw new IpcBlockError('truncated', `The IPC block is truncated: ${bytes.length} bytes were given, but a ${bitness}-bit block needs ${needed}.`);
  }

  const v = viewOf(bytes);
  const perf = { size: v.getUint16(entry.offset, true), attributes: v.getUint16(entry.offset + 2, true) };
  if (perf.size !== layout.perfSize) {
    const other = ipcLayout(bitness === 32 ? 64 : 32);
    if (perf.size === 0) {
      throw new IpcBlockError('unused', 'The IPC block\'s perf-counter section is not set up yet (its size field is 0).');
    }
    if (perf.size === other.perfSize) {
      throw new IpcBlockError('wrong-bitness', `The perf-counter section says it is ${perf.size} bytes, the size a ${other.bitness}-bit process writes, but it was read with the ${bitness}-bit layout (${layout.perfSize} bytes).`);
    }
    throw new IpcBlockError('corrupt', `The perf-counter section says it is ${perf.size} bytes, but a ${bitness}-bit one is ${layout.perfSize}.`);
  }
  if ((perf.attributes & ~KNOWN_ATTRS) !== 0) {
    throw new IpcBlockError('corrupt', `The perf-counter section has attributes ${hex(perf.attributes)}, which include bits no runtime sets.`);
  }

  const o = offsetsFor(bitness);
  const size = bitness === 64 ? readSize64 : readSize32;
  const p = entry.offset;
  const extras = decodeExtras(bytes);
  return {
    bitness,
    header,
    perf,
    stable: (header.counter & 1) === 0,
    updating: (perf.attributes & PERF_ATTR_ON) !== 0,
    gc: gcOf(v, p, o.gc, size),
    contexts: contextsOf(v, p, o.contexts),
    interop: interopOf(v, p, o.interop),
    loading: loadingOf(v, p, o.loading, size),
    exceptions: exceptionsOf(v, p, o.exceptions),
    locksAndThreads: locksAndThreadsOf(v, p, o.locksAndThreads),
    jit: jitOf(v, p, o.jit),
    security: securityOf(v, p, o.security),
    ...(extras === undefined ? {} : { extras }),
  };
}
