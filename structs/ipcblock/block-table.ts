// The .NET Framework's block table (Cor_SxSPublic_IPCBlock): 32 blocks of 2 KiB in one 64 KiB
// mapping, one block per runtime loaded in the process. Pure: given the table (a live mapping read
// through its accessor, or a byte array), it says what each block holds and picks the one to read,
// each block copied under its own sequence counter. No Win32 here; framework-opener.ts maps the
// table, this file chooses inside it.
//
// How the runtime fills the table (README.md has the sources): a runtime takes the first block
// whose RuntimeId is 0, under the block's sequence counter, stamps its RuntimeId (non-zero) and
// the header, and sets the initialized flag once its counters are set up; at shutdown it sets
// the RuntimeId back to 0. So a reader skips blocks with RuntimeId 0, blocks whose counter is odd
// (a writer is inside), and blocks it cannot decode.
import { IpcBlockError, type IpcBlockErrorKind } from './ipc-block-error.js';
import { decodeBlock, detectBitness, readHeader } from './decode.js';
import { readConsistent } from './consistent-read.js';
import { type BlockBytes, type BlockMemory, asMemory, memoryWindow } from './block-memory.js';
import { type Bitness, IPC_BLOCK_SIZE, IPC_BLOCK_TABLE_SIZE, IPC_NUM_BLOCKS_IN_TABLE } from './layout.js';
import { clause } from '../text/clause.js';

/**
 * What one block of the table holds:
 * - `usable`: a version 4 block a runtime owns and has published, of the wanted bitness and process;
 * - `free`: RuntimeId 0 (never taken, or given back by a runtime that shut down);
 * - `busy`: its sequence counter stayed odd (a writer inside) on every attempt to read it;
 * - `not-ready`: owned, but the runtime has not marked it initialized yet;
 * - `wrong-version`: owned, with a header version other than 4;
 * - `wrong-bitness`: a usable block of the other bitness than the one asked for;
 * - `other-process`: its GC section names another process id;
 * - `corrupt`: owned, but not a block any runtime writes.
 */
export type BlockSlotState = 'usable' | 'free' | 'busy' | 'not-ready' | 'wrong-version' | 'wrong-bitness' | 'other-process' | 'corrupt';

export interface BlockSlot {
  /** 0..31: the block starts at index * 2048 in the table. */
  readonly index: number;
  readonly state: BlockSlotState;
  /** IPCHeader.m_RuntimeId (0: free). Meaningless for `busy` slots. */
  readonly runtimeId: number;
  /** IPCHeader.m_Version. */
  readonly version: number;
  /** The writer's bitness, for blocks that decode. */
  readonly bitness?: Bitness;
  /** Perf_GC.cProcessID, for blocks that decode (0 until the runtime's first GC ends). */
  readonly processId?: number;
  /** Why the block is not usable, one sentence (absent for `usable` and `free`). */
  readonly reason?: string;
}

export interface BlockChoiceOptions {
  /**
   * The process the table belongs to: a block whose GC section names another (non-zero) process
   * id is skipped. The runtime stores its pid there after its first GC, so 0 is accepted.
   */
  readonly pid?: number;
  /** Pick the block of this runtime (IPCHeader.m_RuntimeId); default: the first usable block. */
  readonly runtimeId?: number;
  /** Accept only blocks written by a process of this bitness; default: either. */
  readonly bitness?: Bitness;
  /** Attempts to read each block between two equal, even counter values (default 100). */
  readonly maxTries?: number;
}

export interface BlockChoice {
  readonly index: number;
  readonly runtimeId: number;
  readonly bitness: Bitness;
  /** Every block of the table as scanned, for messages and for callers that want another one. */
  readonly slots: readonly BlockSlot[];
}

const DEFAULT_TRIES = 100;

function checkTable(table: BlockMemory): void {
  if (table.size < IPC_BLOCK_TABLE_SIZE) {
    throw new IpcBlockError('truncated', `The IPC block table is truncated: ${table.size} bytes were given, but ${IPC_NUM_BLOCKS_IN_TABLE} blocks of ${IPC_BLOCK_SIZE} bytes need ${IPC_BLOCK_TABLE_SIZE}.`);
  }
}

function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= IPC_NUM_BLOCKS_IN_TABLE) {
    throw new RangeError(`block index ${index} is outside 0..${IPC_NUM_BLOCKS_IN_TABLE - 1}`);
  }
}

/** Block `index` of the table, read through the table (a window, not a copy: live when the table is). */
export function blockAt(table: BlockBytes, index: number): BlockMemory {
  const memory = asMemory(table);
  checkTable(memory);
  checkIndex(index);
  return memoryWindow(memory, index * IPC_BLOCK_SIZE, IPC_BLOCK_SIZE);
}

/**
 * Copies block `index` of a (live) table into `into` (IPC_BLOCK_SIZE bytes) between two equal,
 * even readings of its sequence counter, and returns that counter value. IpcBlockError
 * `unsettled` when a writer was inside on every one of `maxTries` attempts.
 */
export function readTableBlock(table: BlockBytes, index: number, into: Uint8Array, maxTries = 1000): number {
  if (into.length < IPC_BLOCK_SIZE) throw new RangeError(`the copy buffer has ${into.length} bytes, fewer than a block's ${IPC_BLOCK_SIZE}`);
  return readConsistent(blockAt(table, index), into, maxTries);
}

function slotOf(table: BlockMemory, index: number, copy: Uint8Array, options: BlockChoiceOptions): BlockSlot {
  try {
    readTableBlock(table, index, copy, options.maxTries ?? DEFAULT_TRIES);
  } catch (e) {
    if (!(e instanceof IpcBlockError)) throw e;
    return { index, state: 'busy', runtimeId: 0, version: 0, reason: `Block ${index} was being written on every attempt to read it.` };
  }
  const header = readHeader(copy);
  const base = { index, runtimeId: header.runtimeId, version: header.version };
  if (header.runtimeId === 0) return { ...base, state: 'free' };
  let bitness: Bitness;
  let processId: number;
  try {
    bitness = detectBitness(copy);
    processId = decodeBlock(copy, bitness).gc.processID;
  } catch (e) {
    if (!(e instanceof IpcBlockError)) throw e;
    const state: BlockSlotState = e.kind === 'wrong-version' ? 'wrong-version' : e.kind === 'unused' ? 'not-ready' : 'corrupt';
    return { ...base, state, reason: e.message };
  }
  if (options.bitness !== undefined && bitness !== options.bitness) {
    return { ...base, state: 'wrong-bitness', bitness, processId, reason: `Block ${index} was written by a ${bitness}-bit runtime, but a ${options.bitness}-bit one was asked for.` };
  }
  if (options.pid !== undefined && processId !== 0 && processId !== options.pid) {
    return { ...base, state: 'other-process', bitness, processId, reason: `Block ${index} names process ${processId}, not ${options.pid}.` };
  }
  return { ...base, state: 'usable', bitness, processId };
}

/** Reads every block of the table (each under its sequence counter) and says what it holds. */
export function scanBlockTable(table: BlockBytes, options: BlockChoiceOptions = {}): BlockSlot[] {
  const memory = asMemory(table);
  checkTable(memory);
  const copy = new Uint8Array(IPC_BLOCK_SIZE);
  const slots: BlockSlot[] = [];
  for (let i = 0; i < IPC_NUM_BLOCKS_IN_TABLE; i++) slots.push(slotOf(memory, i, copy, options));
  return slots;
}

const hex = (n: number): string => `0x${n.toString(16)}`;

const DESCRIBE: Record<Exclude<BlockSlotState, 'usable'>, (n: number) => string> = {
  busy: (n) => `${n} ${n === 1 ? 'was' : 'were'} being written`,
  'not-ready': (n) => `${n} ${n === 1 ? 'is' : 'are'} not initialized yet`,
  'wrong-version': (n) => `${n} ${n === 1 ? 'has' : 'have'} a version other than 4`,
  'wrong-bitness': (n) => `${n} ${n === 1 ? 'is' : 'are'} of the other bitness`,
  'other-process': (n) => `${n} ${n === 1 ? 'names' : 'name'} another process`,
  corrupt: (n) => `${n} ${n === 1 ? 'is' : 'are'} corrupt`,
  free: (n) => `${n} ${n === 1 ? 'is' : 'are'} free`,
};

// When nothing is usable, the kind says the most telling reason, in this order.
const KIND_OF: readonly (readonly [Exclude<BlockSlotState, 'usable' | 'free'>, IpcBlockErrorKind])[] = [
  ['busy', 'unsettled'],
  ['not-ready', 'unused'],
  ['wrong-bitness', 'wrong-bitness'],
  ['wrong-version', 'wrong-version'],
  ['other-process', 'corrupt'],
  ['corrupt', 'corrupt'],
];

function summary(slots: readonly BlockSlot[]): string {
  const parts: string[] = [];
  for (const state of Object.keys(DESCRIBE) as (keyof typeof DESCRIBE)[]) {
    const n = slots.filter((s) => s.state === state).length;
    if (n > 0) parts.push(DESCRIBE[state](n));
  }
  return parts.join(', ');
}

/**
 * Picks the block to read: the usable block of `options.runtimeId` when given, else the first
 * usable one (lowest index; the runtime takes blocks from index 0 up, and more than one runtime in
 * one process is rare). Throws an IpcBlockError with one sentence when there is none: `unused`
 * when every block is free or still being set up, `unsettled`, `wrong-bitness`, `wrong-version`
 * or `corrupt` after the most telling of the blocks found, `missing` when the asked-for runtime
 * has no block.
 */
export function chooseBlock(table: BlockBytes, options: BlockChoiceOptions = {}): BlockChoice {
  const slots = scanBlockTable(table, options);
  const usable = slots.filter((s) => s.state === 'usable');
  if (options.runtimeId !== undefined) {
    const wanted = options.runtimeId;
    const mine = slots.find((s) => s.runtimeId === wanted && s.state !== 'busy' && s.state !== 'free');
    if (mine === undefined) {
      const present = usable.map((s) => hex(s.runtimeId));
      const busy = slots.filter((s) => s.state === 'busy').length;
      const others = present.length === 0 ? 'no runtime holds a usable block' : `usable blocks belong to ${present.join(', ')}`;
      throw new IpcBlockError('missing', `No block belongs to runtime ${hex(wanted)} (${others}${busy === 0 ? '' : `; ${DESCRIBE.busy(busy)}`}).`);
    }
    if (mine.state !== 'usable' || mine.bitness === undefined) {
      const kind = KIND_OF.find(([state]) => state === mine.state)?.[1] ?? 'corrupt';
      throw new IpcBlockError(kind, `The block of runtime ${hex(wanted)} cannot be read: ${clause(stripPeriod(mine.reason ?? 'it is not usable'))}.`);
    }
    return { index: mine.index, runtimeId: mine.runtimeId, bitness: mine.bitness, slots };
  }
  const first = usable[0];
  if (first?.bitness !== undefined) return { index: first.index, runtimeId: first.runtimeId, bitness: first.bitness, slots };
  if (slots.every((s) => s.state === 'free')) {
    throw new IpcBlockError('unused', `No runtime holds a block: all ${IPC_NUM_BLOCKS_IN_TABLE} blocks are free.`);
  }
  const kind = KIND_OF.find(([state]) => slots.some((s) => s.state === state))?.[1] ?? 'corrupt';
  throw new IpcBlockError(kind, `No block can be read: of the ${IPC_NUM_BLOCKS_IN_TABLE} blocks, ${summary(slots)}.`);
}

function stripPeriod(s: string): string {
  return s.endsWith('.') ? s.slice(0, -1) : s;
}

