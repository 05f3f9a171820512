// Test support (no production code imports it): blocks and whole 64 KiB block tables built byte by
// byte from golden-layout.json, never from layout.ts, so the code under test is checked against
// the documented layout rather than against itself. No bytes here were captured from a real
// Windows process (README.md).
import { readFileSync } from 'node:fs';

export type GoldenBitness = 32 | 64;

interface GoldenField { name: string; offset: number; size: number; type: string }
interface GoldenTable {
  block: { perfOffset: number; perfSize: number; blockSize: number };
  structs: Record<string, { size: number; fields: GoldenField[] }>;
}
interface Golden {
  constants: Record<string, number>;
  bitness: Record<'32' | '64', GoldenTable>;
}

export const golden = JSON.parse(readFileSync(new URL('../../../structs/ipcblock/golden-layout.json', import.meta.url), 'utf8')) as Golden;

export const BLOCK_SIZE = golden.constants.IPC_BLOCK_SIZE;
export const BLOCKS_IN_TABLE = golden.constants.IPC_NUM_BLOCKS_IN_TABLE;
export const TABLE_SIZE = golden.constants.IPC_BLOCK_TABLE_SIZE;

function tableOf(bitness: GoldenBitness): GoldenTable {
  return golden.bitness[String(bitness) as '32' | '64'];
}

/** Offset of an IPCHeader member (the same in both bitnesses). */
export function headerAt(name: string, bitness: GoldenBitness = 64): number {
  const f = tableOf(bitness).structs.IPCHeader.fields.find((x) => x.name === name);
  if (f === undefined) throw new Error(`golden table has no IPCHeader.${name}`);
  return f.offset;
}

/** Where a C path (`m_GC.cProcessID`, `m_Excep.cThrown.Total`) lies from the start of the block, and its width. */
export function perfFieldAt(bitness: GoldenBitness, path: string): { offset: number; size: number } {
  const table = tableOf(bitness);
  let struct = 'PerfCounterIPCControlBlock';
  let offset = table.block.perfOffset;
  let size = 0;
  for (const step of path.split('.')) {
    const m = /^(\w+)(?:\[(\d+)\])?$/.exec(step);
    if (m === null) throw new Error(`bad path ${path}`);
    const f = table.structs[struct]?.fields.find((x) => x.name === m[1]);
    if (f === undefined) throw new Error(`golden table has no ${struct}.${m[1]}`);
    offset += f.offset;
    size = f.size;
    const array = /^(\w+)\[(\d+)\]$/.exec(f.type);
    struct = array === null ? f.type : array[1];
    if (m[2] !== undefined && array !== null) {
      size = f.size / Number(array[2]);
      offset += Number(m[2]) * size;
    }
  }
  return { offset, size };
}

export interface BlockSpec {
  readonly bitness: GoldenBitness;
  /** m_Counter (default 2: published once, stable). */
  readonly counter?: number;
  readonly runtimeId: number;
  /** m_Version (default 4). */
  readonly version?: number;
  /** m_Flags (default USES_FLAGS | INITIALIZED, plus X86 for 32-bit). */
  readonly flags?: number;
  /** Perf_GC.cProcessID (default 0: no GC has ended yet). */
  readonly processId?: number;
  /** More counters by C path, e.g. { 'm_Excep.cThrown.Total': 7 }. */
  readonly counters?: Readonly<Record<string, number>>;
}

function put(view: DataView, at: number, size: number, value: number): void {
  if (size === 2) view.setUint16(at, value, true);
  else if (size === 4) view.setUint32(at, value, true);
  else view.setBigUint64(at, BigInt(value), true);
}

/** One 2 KiB block as a runtime of `spec.bitness` writes it, at the golden offsets. */
export function buildGoldenBlock(spec: BlockSpec): Uint8Array {
  const table = tableOf(spec.bitness);
  const c = golden.constants;
  const bytes = new Uint8Array(BLOCK_SIZE);
  const view = new DataView(bytes.buffer);
  const flags = spec.flags ?? (c.IPC_FLAG_USES_FLAGS | c.IPC_FLAG_INITIALIZED | (spec.bitness === 32 ? c.IPC_FLAG_X86 : 0));
  view.setInt32(headerAt('m_Counter'), spec.counter ?? 2, true);
  put(view, headerAt('m_RuntimeId'), 4, spec.runtimeId);
  put(view, headerAt('m_Version'), 2, spec.version ?? c.VER_IPC_BLOCK);
  put(view, headerAt('m_Flags'), 2, flags);
  put(view, headerAt('m_blockSize'), 4, table.block.blockSize);
  put(view, headerAt('m_BuildYear'), 2, 4);
  put(view, headerAt('m_BuildNumber'), 2, 30319);
  put(view, headerAt('m_numEntries'), 4, c.eIPC_MAX);
  const entry = table.structs.IPCEntry.fields;
  put(view, headerAt('m_table') + entry[0].offset, 4, table.block.perfOffset);
  put(view, headerAt('m_table') + entry[1].offset, 4, table.block.perfSize);
  const perf = table.structs.PerfCounterIPCControlBlock.fields;
  put(view, table.block.perfOffset + perf[0].offset, 2, table.block.perfSize);
  put(view, table.block.perfOffset + perf[1].offset, 2, c.PERF_ATTR_ON);
  const counters: Record<string, number> = { 'm_GC.cProcessID': spec.processId ?? 0, ...spec.counters };
  for (const [path, value] of Object.entries(counters)) {
    const { offset, size } = perfFieldAt(spec.bitness, path);
    put(view, offset, size, value);
  }
  return bytes;
}

/** A whole table: the given blocks at their indexes, every other block all zeros (never written). */
export function buildGoldenTable(blocks: Readonly<Record<number, BlockSpec | Uint8Array>>): Uint8Array {
  const table = new Uint8Array(TABLE_SIZE);
  for (const [index, block] of Object.entries(blocks)) {
    table.set(block instanceof Uint8Array ? block : buildGoldenBlock(block), Number(index) * BLOCK_SIZE);
  }
  return table;
}
