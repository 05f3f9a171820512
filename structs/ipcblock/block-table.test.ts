// Choosing the block to read in a .NET Framework block table, on 64 KiB tables built byte by byte
// from golden-layout.json (golden-fixtures.ts): never-written and freed blocks, a version 2
// block, a 32-bit and a 64-bit version 4 block, one a writer is inside (odd counter), one not
// initialized yet, one naming another process. Built from the documented layout, not captured.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BlockSlot, blockAt, chooseBlock, readTableBlock, scanBlockTable } from './block-table.js';
import { decodeBlock } from './decode.js';
import { memoryFromBytes } from './block-memory.js';
import { BLOCK_SIZE, BLOCKS_IN_TABLE, TABLE_SIZE, buildGoldenBlock, buildGoldenTable, golden, headerAt, perfFieldAt } from './golden-fixtures.js';
import { blockError } from './expect-block-error.js';

const PID = 4242;
const c = golden.constants;

/** Index → block: the mixed table most tests read. */
const MIXED = {
  // 0: never written (all zeros).
  1: { bitness: 64, runtimeId: 0, counter: 4, processId: PID }, // taken once, given back at shutdown
  2: { bitness: 64, runtimeId: 0x21, version: 2, processId: PID }, // a version 2 block
  3: { bitness: 32, runtimeId: 0x31, processId: PID, counters: { 'm_Excep.cThrown.Total': 31, 'm_GC.cGenCollections[0]': 310 } },
  4: { bitness: 64, runtimeId: 0x41, processId: PID, counters: { 'm_Excep.cThrown.Total': 41, 'm_GC.cGenCollections[0]': 410 } },
  5: { bitness: 64, runtimeId: 0x51, counter: 7, processId: PID }, // a writer inside: odd counter
  6: { bitness: 64, runtimeId: 0x61, flags: c.IPC_FLAG_USES_FLAGS, processId: PID }, // not initialized yet
  7: { bitness: 64, runtimeId: 0x71, processId: 999 }, // names another process
} as const;

function mixedTable(): Uint8Array {
  return buildGoldenTable(MIXED);
}

const stateOf = (slots: readonly BlockSlot[]): string[] => slots.map((s) => s.state);

describe('the golden fixtures themselves', () => {
  it('put each block at index * 2048 of a 65536-byte table, header fields at the golden offsets', () => {
    const table = mixedTable();
    assert.equal(table.length, 65536);
    assert.equal(TABLE_SIZE, BLOCKS_IN_TABLE * BLOCK_SIZE);
    const v = new DataView(table.buffer);
    // Block 3 (32-bit): counter 2 at byte 6144, RuntimeId 0x31 at 6148, version 4 at 6160, flags 7 at 6162.
    assert.equal(v.getInt32(3 * 2048 + 0, true), 2);
    assert.equal(v.getUint32(3 * 2048 + 4, true), 0x31);
    assert.equal(v.getUint16(3 * 2048 + 16, true), 4);
    assert.equal(v.getUint16(3 * 2048 + 18, true), 7);
    assert.equal(v.getUint32(3 * 2048 + 20, true), 320);
    // Its perf block at +40: m_cBytes 280; cProcessID (size_t, 4 bytes) at +40+28.
    assert.equal(v.getUint16(3 * 2048 + 40, true), 280);
    assert.equal(v.getUint32(3 * 2048 + 68, true), PID);
    // Block 4 (64-bit): flags 3, block size 424, cProcessID (8 bytes) at +40+56.
    assert.equal(v.getUint16(4 * 2048 + 18, true), 3);
    assert.equal(v.getUint32(4 * 2048 + 20, true), 424);
    assert.equal(v.getBigUint64(4 * 2048 + 96, true), BigInt(PID));
    // Block 5: the odd counter.
    assert.equal(v.getInt32(5 * 2048, true), 7);
    assert.deepEqual(perfFieldAt(64, 'm_GC.cProcessID'), { offset: 96, size: 8 });
    assert.equal(headerAt('m_RuntimeId'), 4);
  });
});

describe('scanBlockTable', () => {
  it('says what each of the 32 blocks holds', () => {
    const slots = scanBlockTable(mixedTable(), { pid: PID, maxTries: 5 });
    assert.equal(slots.length, 32);
    assert.deepEqual(stateOf(slots).slice(0, 8), ['free', 'free', 'wrong-version', 'usable', 'usable', 'busy', 'not-ready', 'other-process']);
    assert.ok(slots.slice(8).every((s) => s.state === 'free'));
    assert.deepEqual(slots.map((s) => s.index), [...Array(32).keys()]);
    assert.deepEqual(slots[3], { index: 3, state: 'usable', runtimeId: 0x31, version: 4, bitness: 32, processId: PID });
    assert.deepEqual(slots[4], { index: 4, state: 'usable', runtimeId: 0x41, version: 4, bitness: 64, processId: PID });
    assert.equal(slots[2].version, 2);
    assert.match(slots[2].reason ?? '', /version 2/);
    assert.match(slots[5].reason ?? '', /being written/);
    assert.match(slots[6].reason ?? '', /initialized flag/);
    assert.match(slots[7].reason ?? '', /names process 999, not 4242/);
    assert.equal(slots[0].reason, undefined);
  });

  it('skips the blocks of the other bitness when one is asked for', () => {
    assert.equal(scanBlockTable(mixedTable(), { bitness: 64, maxTries: 5 })[3].state, 'wrong-bitness');
    assert.equal(scanBlockTable(mixedTable(), { bitness: 32, maxTries: 5 })[4].state, 'wrong-bitness');
  });

  it('without a pid, a block naming any process is usable; with one, a block whose pid is still 0 is too', () => {
    assert.equal(scanBlockTable(mixedTable(), { maxTries: 5 })[7].state, 'usable');
    const early = buildGoldenTable({ 0: { bitness: 64, runtimeId: 9, processId: 0 } });
    assert.equal(scanBlockTable(early, { pid: PID })[0].state, 'usable');
  });

  it('a truncated table is an IpcBlockError naming both sizes', () => {
    assert.match(blockError(() => scanBlockTable(new Uint8Array(65535)), 'truncated'), /65535 bytes.*65536/);
  });
});

describe('chooseBlock', () => {
  it('takes the first usable block by default (the 32-bit one at index 3)', () => {
    const choice = chooseBlock(mixedTable(), { pid: PID, maxTries: 5 });
    assert.deepEqual({ index: choice.index, runtimeId: choice.runtimeId, bitness: choice.bitness }, { index: 3, runtimeId: 0x31, bitness: 32 });
    assert.equal(choice.slots.length, 32);
  });

  it('takes the block of the requested bitness', () => {
    const choice = chooseBlock(mixedTable(), { pid: PID, bitness: 64, maxTries: 5 });
    assert.deepEqual([choice.index, choice.runtimeId, choice.bitness], [4, 0x41, 64]);
  });

  it('takes the block of the requested runtime', () => {
    assert.equal(chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x41, maxTries: 5 }).index, 4);
    assert.equal(chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x31, maxTries: 5 }).index, 3);
  });

  it('the chosen block decodes to the values written at the golden offsets', () => {
    const table = mixedTable();
    for (const [runtimeId, thrown, gen0] of [[0x31, 31, 310], [0x41, 41, 410]] as const) {
      const choice = chooseBlock(table, { pid: PID, runtimeId, maxTries: 5 });
      const s = decodeBlock(table.subarray(choice.index * 2048, (choice.index + 1) * 2048), choice.bitness);
      assert.equal(s.header.runtimeId, runtimeId);
      assert.equal(s.gc.processID, PID);
      assert.equal(s.exceptions.thrown, thrown);
      assert.equal(s.gc.genCollections0, gen0);
    }
  });

  it('a requested runtime whose block is not usable: says why, with the kind of what is wrong', () => {
    assert.match(blockError(() => chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x21, maxTries: 5 }), 'wrong-version'), /runtime 0x21 cannot be read: the IPC block has version 2/);
    assert.match(blockError(() => chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x61, maxTries: 5 }), 'unused'), /runtime 0x61.*initialized flag/);
    assert.match(blockError(() => chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x71, maxTries: 5 }), 'corrupt'), /names process 999/);
    assert.match(blockError(() => chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x41, bitness: 32, maxTries: 5 }), 'wrong-bitness'), /64-bit runtime/);
  });

  it('a runtime with no block: missing, naming the runtimes that have one and the busy blocks', () => {
    const msg = blockError(() => chooseBlock(mixedTable(), { pid: PID, runtimeId: 0x99, maxTries: 5 }), 'missing');
    assert.match(msg, /runtime 0x99 \(usable blocks belong to 0x31, 0x41; 1 was being written\)/);
  });

  it('an all-free table: unused (no runtime loaded, or it has shut down)', () => {
    const freed = buildGoldenTable({ 0: { bitness: 64, runtimeId: 0, counter: 6 } });
    assert.match(blockError(() => chooseBlock(freed), 'unused'), /all 32 blocks are free/);
    blockError(() => chooseBlock(new Uint8Array(65536)), 'unused');
  });

  it('nothing usable: the kind follows the most telling block, the sentence counts them all', () => {
    const only = (spec: Parameters<typeof buildGoldenBlock>[0]): Uint8Array => buildGoldenTable({ 2: spec });
    assert.match(blockError(() => chooseBlock(only({ bitness: 64, runtimeId: 5, counter: 3 }), { maxTries: 3 }), 'unsettled'), /of the 32 blocks, 1 was being written, 31 are free/);
    assert.match(blockError(() => chooseBlock(only({ bitness: 32, runtimeId: 5, version: 2 })), 'wrong-version'), /1 has a version other than 4/);
    assert.match(blockError(() => chooseBlock(only({ bitness: 64, runtimeId: 5, flags: 1 })), 'unused'), /1 is not initialized yet/);
    assert.match(blockError(() => chooseBlock(only({ bitness: 64, runtimeId: 5, processId: 7 }), { pid: PID }), 'corrupt'), /1 names another process/);
    assert.match(blockError(() => chooseBlock(only({ bitness: 32, runtimeId: 5 }), { bitness: 64 }), 'wrong-bitness'), /1 is of the other bitness/);
    const garbage = new Uint8Array(2048).fill(0xa5);
    new DataView(garbage.buffer).setInt32(0, 2, true); // a stable counter in front of garbage
    assert.match(blockError(() => chooseBlock(buildGoldenTable({ 0: garbage })), 'corrupt'), /1 is corrupt/);
  });
});

describe('readTableBlock and blockAt', () => {
  it('copies exactly block i of the table and returns its (even) counter', () => {
    const table = mixedTable();
    const into = new Uint8Array(2048);
    assert.equal(readTableBlock(table, 4, into), 2);
    assert.deepEqual(into, buildGoldenBlock(MIXED[4]));
    assert.equal(readTableBlock(table, 0, into), 0);
    assert.ok(into.every((b) => b === 0));
  });

  it('a block whose counter stays odd (a writer inside): unsettled after the given tries', () => {
    assert.match(blockError(() => readTableBlock(mixedTable(), 5, new Uint8Array(2048), 10), 'unsettled'), /all 10 attempts/);
  });

  it('blockAt is a live window: a write into the table shows through it', () => {
    const table = mixedTable();
    const block = blockAt(table, 31);
    assert.equal(block.size, 2048);
    table[31 * 2048 + 4] = 0x7f;
    table[31 * 2048] = 0x06;
    assert.equal(block.readInt32(0), 6);
    const into = new Uint8Array(8);
    block.read(into, 0, 8);
    assert.deepEqual([...into], [6, 0, 0, 0, 0x7f, 0, 0, 0]);
    // Reads stay inside the block: not into block 30 before it, nor past the table.
    assert.throws(() => block.read(new Uint8Array(4), 2046, 4), RangeError);
    assert.throws(() => block.readInt32(-4), RangeError);
  });

  it('reads a table given as an accessor the same as one given as bytes', () => {
    const table = memoryFromBytes(mixedTable());
    const into = new Uint8Array(2048);
    assert.equal(readTableBlock(table, 4, into), 2);
    assert.deepEqual(into, buildGoldenBlock(MIXED[4]));
    assert.deepEqual(stateOf(scanBlockTable(table, { pid: PID, maxTries: 5 })), stateOf(scanBlockTable(mixedTable(), { pid: PID, maxTries: 5 })));
    assert.equal(chooseBlock(table, { pid: PID, bitness: 64, maxTries: 5 }).index, 4);
    assert.match(blockError(() => scanBlockTable(memoryFromBytes(new Uint8Array(65535))), 'truncated'), /65535 bytes.*65536/);
  });

  it('a block a writer enters and leaves while it is read: the copy is retried until the counter holds still', () => {
    const table = mixedTable();
    const memory = memoryFromBytes(table);
    // An accessor whose writer moves on between the first counter reading and the copy, twice.
    let copies = 0;
    const racing = {
      size: memory.size,
      readInt32: (offset: number) => memory.readInt32(offset),
      read: (into: Uint8Array, offset: number, length: number) => {
        memory.read(into, offset, length);
        if (++copies <= 2) new DataView(table.buffer).setInt32(4 * 2048, 2 + 2 * copies, true);
      },
    };
    const into = new Uint8Array(2048);
    assert.equal(readTableBlock(racing, 4, into), 6);
    assert.equal(copies, 3);
  });

  it('rejects indexes outside 0..31 and short copy buffers', () => {
    assert.throws(() => blockAt(mixedTable(), 32), RangeError);
    assert.throws(() => blockAt(mixedTable(), -1), RangeError);
    assert.throws(() => readTableBlock(mixedTable(), 0, new Uint8Array(100)), RangeError);
  });
});
