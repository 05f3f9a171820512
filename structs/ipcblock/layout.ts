// The .NET Framework 4.x perf-counter IPC block (one 2 KiB block of Cor_SxSPublic_IPCBlock) as
// koffi struct types, one set per bitness, plus the camelCase names the JSON output uses.
//
// The C declarations are written out once below as plain data (SECTIONS, HEADER_FIELDS) in the
// runtime's own member names; koffi lays them out for a 32-bit or a 64-bit process. The tests
// check every koffi size and offset against golden-layout.json, the same table the C++ header
// (native-profiler/core/ipc_block.h) is checked against. README.md says where each fact is from.
//
// Only the main process imports this folder (ARCHITECTURE.md): koffi is a native module.
import koffi, { type TypeObject } from 'koffi';

export type Bitness = 32 | 64;
export const BITNESSES: readonly Bitness[] = [32, 64];

// ---- Constants of the block table, its header and the perf block ----

/** One block of the table; the header's directory offsets stay below this. */
export const IPC_BLOCK_SIZE = 2048;
/** Blocks in the Cor_SxSPublic_IPCBlock table (one per runtime in the process). */
export const IPC_NUM_BLOCKS_IN_TABLE = 32;
export const IPC_BLOCK_TABLE_SIZE = IPC_BLOCK_SIZE * IPC_NUM_BLOCKS_IN_TABLE;
/** IPCHeader.m_Version of the .NET Framework 4.x block. */
export const IPC_BLOCK_VERSION = 4;
/** Directory slot of the perf-counter section. */
export const IPC_ENTRY_PERF_COUNTERS = 0;
/** Directory slots in a version 4 header. */
export const IPC_ENTRY_COUNT = 1;
/** Offset of an unused directory slot. */
export const IPC_EMPTY_ENTRY_OFFSET = 0xffffffff;
/** IPCHeader.m_Flags bits. */
export const IPC_FLAG_USES_FLAGS = 0x1;
export const IPC_FLAG_INITIALIZED = 0x2;
export const IPC_FLAG_X86 = 0x4;
/** PerfCounterIPCControlBlock.m_wAttrs bits. */
export const PERF_ATTR_ON = 0x1;
export const PERF_ATTR_GLOBAL = 0x2;
export const MAX_TRACKED_GENS = 3;
/**
 * The sequence counter (IPCHeader.m_Counter, a 32-bit signed little-endian LONG) is the first
 * four bytes of a block in both bitnesses. Even: stable; odd: a writer is inside.
 */
export const IPC_SEQUENCE_COUNTER_OFFSET = 0;
export const IPC_SEQUENCE_COUNTER_SIZE = 4;

// ---- The declarations, as data ----

/** C types the block is declared in. size_t is the pointer-sized one. */
export type CType = 'WORD' | 'USHORT' | 'DWORD' | 'LONG' | 'LONGLONG' | 'size_t' | 'TRICOUNT' | 'TRICOUNT_IL' | 'DUALCOUNT';

export interface FieldDecl {
  /** The runtime's member name. */
  readonly name: string;
  readonly type: CType;
  /** Element count when the member is an array. */
  readonly count?: number;
}

export type SectionKey = 'gc' | 'contexts' | 'interop' | 'loading' | 'exceptions' | 'locksAndThreads' | 'jit' | 'security';

export interface SectionDecl {
  /** Name of the section in snapshots and JSON output. */
  readonly key: SectionKey;
  /** Member of PerfCounterIPCControlBlock that holds it. */
  readonly member: string;
  /** The runtime's struct name. */
  readonly struct: string;
  readonly fields: readonly FieldDecl[];
}

export const HEADER_FIELDS: readonly FieldDecl[] = [
  { name: 'm_Counter', type: 'LONG' },
  { name: 'm_RuntimeId', type: 'DWORD' },
  { name: 'm_Reserved1', type: 'DWORD' },
  { name: 'm_Reserved2', type: 'DWORD' },
  { name: 'm_Version', type: 'USHORT' },
  { name: 'm_Flags', type: 'USHORT' },
  { name: 'm_blockSize', type: 'DWORD' },
  { name: 'm_BuildYear', type: 'USHORT' },
  { name: 'm_BuildNumber', type: 'USHORT' },
  { name: 'm_numEntries', type: 'DWORD' },
];

/** The perf block's sections in memory order. */
export const SECTIONS: readonly SectionDecl[] = [
  {
    key: 'gc', member: 'm_GC', struct: 'Perf_GC', fields: [
      { name: 'cGenCollections', type: 'size_t', count: MAX_TRACKED_GENS },
      { name: 'cbPromotedMem', type: 'size_t', count: MAX_TRACKED_GENS - 1 },
      { name: 'cbPromotedFinalizationMem', type: 'size_t' },
      { name: 'cProcessID', type: 'size_t' },
      { name: 'cGenHeapSize', type: 'size_t', count: MAX_TRACKED_GENS },
      { name: 'cTotalCommittedBytes', type: 'size_t' },
      { name: 'cTotalReservedBytes', type: 'size_t' },
      { name: 'cLrgObjSize', type: 'size_t' },
      { name: 'cSurviveFinalize', type: 'size_t' },
      { name: 'cHandles', type: 'size_t' },
      { name: 'cbAlloc', type: 'size_t' },
      { name: 'cbLargeAlloc', type: 'size_t' },
      { name: 'cInducedGCs', type: 'size_t' },
      { name: 'timeInGC', type: 'DWORD' },
      { name: 'timeInGCBase', type: 'DWORD' },
      { name: 'cPinnedObj', type: 'size_t' },
      { name: 'cSinkBlocks', type: 'size_t' },
    ],
  },
  {
    key: 'contexts', member: 'm_Context', struct: 'Perf_Contexts', fields: [
      { name: 'cRemoteCalls', type: 'DUALCOUNT' },
      { name: 'cChannels', type: 'DWORD' },
      { name: 'cProxies', type: 'DWORD' },
      { name: 'cClasses', type: 'DWORD' },
      { name: 'cObjAlloc', type: 'DWORD' },
      { name: 'cContexts', type: 'DWORD' },
    ],
  },
  {
    key: 'interop', member: 'm_Interop', struct: 'Perf_Interop', fields: [
      { name: 'cCCW', type: 'DWORD' },
      { name: 'cStubs', type: 'DWORD' },
      { name: 'cMarshalling', type: 'DWORD' },
      { name: 'cTLBImports', type: 'DWORD' },
      { name: 'cTLBExports', type: 'DWORD' },
    ],
  },
  {
    key: 'loading', member: 'm_Loading', struct: 'Perf_Loading', fields: [
      { name: 'cClassesLoaded', type: 'TRICOUNT' },
      { name: 'cAppDomains', type: 'TRICOUNT_IL' },
      { name: 'cAssemblies', type: 'TRICOUNT' },
      { name: 'timeLoading', type: 'LONGLONG' },
      { name: 'cAsmSearchLen', type: 'DWORD' },
      { name: 'cLoadFailures', type: 'DUALCOUNT' },
      { name: 'cbLoaderHeapSize', type: 'size_t' },
      { name: 'cAppDomainsUnloaded', type: 'DUALCOUNT' },
    ],
  },
  {
    key: 'exceptions', member: 'm_Excep', struct: 'Perf_Excep', fields: [
      { name: 'cThrown', type: 'DUALCOUNT' },
      { name: 'cFiltersExecuted', type: 'DWORD' },
      { name: 'cFinallysExecuted', type: 'DWORD' },
      { name: 'cThrowToCatchStackDepth', type: 'DWORD' },
    ],
  },
  {
    key: 'locksAndThreads', member: 'm_LocksAndThreads', struct: 'Perf_LocksAndThreads', fields: [
      { name: 'cContention', type: 'DUALCOUNT' },
      { name: 'cQueueLength', type: 'TRICOUNT' },
      { name: 'cCurrentThreadsLogical', type: 'DWORD' },
      { name: 'cCurrentThreadsPhysical', type: 'DWORD' },
      { name: 'cRecognizedThreads', type: 'TRICOUNT' },
    ],
  },
  {
    key: 'jit', member: 'm_Jit', struct: 'Perf_Jit', fields: [
      { name: 'cMethodsJitted', type: 'DWORD' },
      { name: 'cbILJitted', type: 'TRICOUNT' },
      { name: 'cJitFailures', type: 'DWORD' },
      { name: 'timeInJit', type: 'DWORD' },
      { name: 'timeInJitBase', type: 'DWORD' },
    ],
  },
  {
    key: 'security', member: 'm_Security', struct: 'Perf_Security', fields: [
      { name: 'cTotalRTChecks', type: 'DWORD' },
      { name: 'timeAuthorize', type: 'LONGLONG' },
      { name: 'cLinkChecks', type: 'DWORD' },
      { name: 'timeRTchecks', type: 'DWORD' },
      { name: 'timeRTchecksBase', type: 'DWORD' },
      { name: 'stackWalkDepth', type: 'DWORD' },
    ],
  },
];

// ---- camelCase names ----

/**
 * The JSON name of a runtime member: the Hungarian prefix `c` (count) or `cb` (count of bytes)
 * is dropped when a capital follows, and the leading word or acronym is lower-cased
 * (cGenCollections → genCollections, cInducedGCs → inducedGCs, cCCW → ccw,
 * cTLBImports → tlbImports, cbILJitted → ilJitted, timeInGC → timeInGC).
 */
export function camelCaseName(member: string): string {
  const stripped = /^cb?(?=[A-Z])/.test(member) ? member.replace(/^cb?/, '') : member;
  const lead = /^[A-Z]+/.exec(stripped)?.[0] ?? '';
  if (lead.length === 0) return stripped;
  // An acronym followed by a word keeps the word's capital: TLBImports → tlb + Imports.
  const cut = lead.length > 1 && lead.length < stripped.length && /[a-z]/.test(stripped[lead.length]) ? lead.length - 1 : lead.length;
  return stripped.slice(0, cut).toLowerCase() + stripped.slice(cut);
}

/** A TRICOUNT's two members become two fields: `<name>Current` and `<name>Total`. */
const TRICOUNT_PARTS = [
  { member: 'Cur', suffix: 'Current' },
  { member: 'Total', suffix: 'Total' },
] as const;

/** Value kinds of decoded fields; see the README for why only LONGLONG is a bigint. */
export type FieldValueKind = 'number' | 'bigint';

/** One scalar counter as it appears in a snapshot and in the JSON output. */
export interface CounterField {
  readonly section: SectionKey;
  /** camelCase name inside its section, e.g. `genCollections0`. */
  readonly name: string;
  /** Where it lives, in the runtime's names: `m_GC.cGenCollections[0]`, `m_Loading.cClassesLoaded.Cur`. */
  readonly path: string;
  /** The runtime's declared type of the scalar (for TRICOUNT/DUALCOUNT parts: DWORD). */
  readonly cType: 'DWORD' | 'LONGLONG' | 'size_t';
  readonly value: FieldValueKind;
}

function counterFieldsOf(section: SectionDecl): CounterField[] {
  const out: CounterField[] = [];
  for (const f of section.fields) {
    const base = camelCaseName(f.name);
    const at = `${section.member}.${f.name}`;
    switch (f.type) {
      case 'TRICOUNT':
      case 'TRICOUNT_IL':
        for (const p of TRICOUNT_PARTS) {
          out.push({ section: section.key, name: base + p.suffix, path: `${at}.${p.member}`, cType: 'DWORD', value: 'number' });
        }
        break;
      case 'DUALCOUNT':
        out.push({ section: section.key, name: base, path: `${at}.Total`, cType: 'DWORD', value: 'number' });
        break;
      case 'LONGLONG':
        out.push({ section: section.key, name: base, path: at, cType: 'LONGLONG', value: 'bigint' });
        break;
      case 'DWORD':
      case 'size_t':
        if (f.count !== undefined) {
          for (let i = 0; i < f.count; i++) {
            out.push({ section: section.key, name: `${base}${i}`, path: `${at}[${i}]`, cType: f.type, value: 'number' });
          }
        } else {
          out.push({ section: section.key, name: base, path: at, cType: f.type, value: 'number' });
        }
        break;
      default:
        throw new Error(`layout: ${section.struct}.${f.name} has a type no section field may have (${f.type})`);
    }
  }
  return out;
}

/** Every counter of the perf block, section by section in memory order. */
export const COUNTER_FIELDS: readonly CounterField[] = SECTIONS.flatMap(counterFieldsOf);

// ---- koffi types ----

export type StructName =
  | 'IPCEntry' | 'IPCHeader' | 'TRICOUNT' | 'TRICOUNT_IL' | 'DUALCOUNT'
  | 'Perf_GC' | 'Perf_Contexts' | 'Perf_Interop' | 'Perf_Loading' | 'Perf_Excep'
  | 'Perf_LocksAndThreads' | 'Perf_Jit' | 'Perf_Security'
  | 'PerfCounterIPCControlBlock' | 'IPCControlBlock';

export interface IpcLayout {
  readonly bitness: Bitness;
  /** koffi struct types under the runtime's struct names. */
  readonly structs: Readonly<Record<StructName, TypeObject>>;
  /** sizeof(IPCHeader): 40 in both bitnesses. */
  readonly headerSize: number;
  /** Where the perf block starts in a block written by the runtime (the directory may say otherwise). */
  readonly perfOffset: number;
  /** sizeof(PerfCounterIPCControlBlock): 280 (32-bit) or 384 (64-bit). */
  readonly perfSize: number;
  /** alignof(PerfCounterIPCControlBlock). */
  readonly perfAlign: number;
  /** IPCHeader.m_blockSize as the runtime writes it: header plus perf block, 320 or 424. */
  readonly blockSize: number;
}

function buildLayout(bitness: Bitness): IpcLayout {
  const tag = `clrscope_ipc${bitness}_`;
  // size_t is 4 or 8 bytes. The runtime packs its 32-bit perf structs to 4 bytes (#pragma pack 4),
  // so there LONGLONG sits on a 4-byte boundary; a 64-bit build aligns it naturally.
  const sizeT = bitness === 32 ? 'uint32' : 'uint64';
  const longLong: [number, string] | string = bitness === 32 ? [4, 'int64'] : 'int64';

  const IPCEntry = koffi.struct(`${tag}IPCEntry`, { m_Offset: 'uint32', m_Size: 'uint32' });
  const scalar: Record<'WORD' | 'USHORT' | 'DWORD' | 'LONG', string> = { WORD: 'uint16', USHORT: 'uint16', DWORD: 'uint32', LONG: 'int32' };
  const headerDef: Record<string, TypeObject | string> = {};
  for (const f of HEADER_FIELDS) headerDef[f.name] = scalar[f.type as keyof typeof scalar];
  headerDef.m_table = koffi.array(IPCEntry, IPC_ENTRY_COUNT);
  const IPCHeader = koffi.struct(`${tag}IPCHeader`, headerDef);

  const TRICOUNT = koffi.struct(`${tag}TRICOUNT`, { Cur: 'uint32', Total: 'uint32' });
  const TRICOUNT_IL = koffi.struct(`${tag}TRICOUNT_IL`, { Cur: 'uint32', Total: 'uint32' });
  const DUALCOUNT = koffi.struct(`${tag}DUALCOUNT`, { Total: 'uint32' });
  const typeOf = (t: CType): TypeObject | string | [number, string] => {
    switch (t) {
      case 'TRICOUNT': return TRICOUNT;
      case 'TRICOUNT_IL': return TRICOUNT_IL;
      case 'DUALCOUNT': return DUALCOUNT;
      case 'LONGLONG': return longLong;
      case 'size_t': return sizeT;
      default: return scalar[t];
    }
  };

  const sectionTypes: Partial<Record<StructName, TypeObject>> = {};
  const perfDef: Record<string, TypeObject | string> = { m_cBytes: 'uint16', m_wAttrs: 'uint16' };
  for (const s of SECTIONS) {
    const def: Record<string, TypeObject | string | [number, string | TypeObject]> = {};
    for (const f of s.fields) {
      const t = typeOf(f.type);
      if (f.count === undefined) def[f.name] = t;
      else if (typeof t === 'string') def[f.name] = koffi.array(t, f.count);
      else throw new Error(`layout: arrays of ${f.type} are not declared here`);
    }
    const type = koffi.struct(`${tag}${s.struct}`, def);
    sectionTypes[s.struct as StructName] = type;
    perfDef[s.member] = type;
  }
  const PerfCounterIPCControlBlock = koffi.struct(`${tag}PerfCounterIPCControlBlock`, perfDef);
  const blockSize = koffi.sizeof(IPCHeader) + koffi.sizeof(PerfCounterIPCControlBlock);
  const IPCControlBlock = koffi.struct(`${tag}IPCControlBlock`, {
    m_Header: IPCHeader,
    m_perf: PerfCounterIPCControlBlock,
    m_Padding: koffi.array('uint8', IPC_BLOCK_SIZE - blockSize),
  });

  const structs = {
    IPCEntry, IPCHeader, TRICOUNT, TRICOUNT_IL, DUALCOUNT,
    ...sectionTypes,
    PerfCounterIPCControlBlock, IPCControlBlock,
  } as Record<StructName, TypeObject>;
  return Object.freeze({
    bitness,
    structs: Object.freeze(structs),
    headerSize: koffi.sizeof(IPCHeader),
    perfOffset: koffi.offsetof(IPCControlBlock, 'm_perf'),
    perfSize: koffi.sizeof(PerfCounterIPCControlBlock),
    perfAlign: koffi.alignof(PerfCounterIPCControlBlock),
    blockSize,
  });
}

const layouts = new Map<Bitness, IpcLayout>();

/** The koffi layout of a 32-bit or a 64-bit process's block (built once, then cached). */
export function ipcLayout(bitness: Bitness): IpcLayout {
  let l = layouts.get(bitness);
  if (l === undefined) {
    if (bitness !== 32 && bitness !== 64) throw new Error(`ipcLayout: bitness must be 32 or 64, not ${String(bitness)}`);
    l = buildLayout(bitness);
    layouts.set(bitness, l);
  }
  return l;
}

// ---- Where each counter lives, from koffi's offsets ----

export type ScalarReader = 'u32' | 'u64' | 'i64';

export interface CounterSlot {
  readonly field: CounterField;
  /** Byte offset from the start of the perf block. */
  readonly offset: number;
  readonly reader: ScalarReader;
}

/** Offset (within its parent) of each step of a CounterField path such as `m_GC.cGenCollections[2]`. */
function offsetOfPath(layout: IpcLayout, path: string): number {
  const steps = path.split('.');
  let type: TypeObject = layout.structs.PerfCounterIPCControlBlock;
  let offset = 0;
  for (const step of steps) {
    const m = /^(\w+)(?:\[(\d+)\])?$/.exec(step);
    if (m === null) throw new Error(`layout: bad path ${path}`);
    const member = type.members?.[m[1]];
    if (member === undefined) throw new Error(`layout: ${type.name} has no member ${m[1]}`);
    offset += koffi.offsetof(type, m[1]);
    type = member.type;
    if (m[2] !== undefined) {
      const elem = type.ref;
      if (elem === undefined) throw new Error(`layout: ${m[1]} is not an array`);
      offset += Number(m[2]) * koffi.sizeof(elem);
      type = koffi.type(elem);
    }
  }
  return offset;
}

const slotCache = new Map<Bitness, readonly CounterSlot[]>();

/** Every counter's offset within the perf block and how to read it, for one bitness. */
export function counterSlots(bitness: Bitness): readonly CounterSlot[] {
  let slots = slotCache.get(bitness);
  if (slots === undefined) {
    const layout = ipcLayout(bitness);
    slots = Object.freeze(COUNTER_FIELDS.map((field): CounterSlot => {
      const reader: ScalarReader = field.cType === 'LONGLONG' ? 'i64' : field.cType === 'size_t' && bitness === 64 ? 'u64' : 'u32';
      return Object.freeze({ field, offset: offsetOfPath(layout, field.path), reader });
    }));
    slotCache.set(bitness, slots);
  }
  return slots;
}

/** Byte offset of a header member from the start of the block (same for both bitnesses). */
export function headerOffset(member: string, bitness: Bitness = 64): number {
  return koffi.offsetof(ipcLayout(bitness).structs.IPCHeader, member);
}
