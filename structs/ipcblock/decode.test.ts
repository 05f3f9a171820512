// decodeBlock against blocks built byte by byte from golden-layout.json (never from layout.ts),
// for both bitnesses, and the errors for blocks that are not usable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type IpcBlockSnapshot, IpcBlockError, decodeBlock, detectBitness, readHeader } from './decode.js';
import type { Bitness } from './layout.js';
import { blockError } from './expect-block-error.js';

interface GoldenField { name: string; offset: number; size: number; type: string }
interface GoldenBitness {
  block: { perfOffset: number; perfSize: number; blockSize: number };
  structs: Record<string, { size: number; fields: GoldenField[] }>;
}
const golden = JSON.parse(readFileSync(new URL('../../../structs/ipcblock/golden-layout.json', import.meta.url), 'utf8')) as {
  bitness: Record<'32' | '64', GoldenBitness>;
};

// Every counter: its JSON name and where the runtime keeps it, written out once here.
const COUNTERS: readonly (readonly [string, string])[] = [
  ['gc.genCollections0', 'm_GC.cGenCollections[0]'],
  ['gc.genCollections1', 'm_GC.cGenCollections[1]'],
  ['gc.genCollections2', 'm_GC.cGenCollections[2]'],
  ['gc.promotedMem0', 'm_GC.cbPromotedMem[0]'],
  ['gc.promotedMem1', 'm_GC.cbPromotedMem[1]'],
  ['gc.promotedFinalizationMem', 'm_GC.cbPromotedFinalizationMem'],
  ['gc.processID', 'm_GC.cProcessID'],
  ['gc.genHeapSize0', 'm_GC.cGenHeapSize[0]'],
  ['gc.genHeapSize1', 'm_GC.cGenHeapSize[1]'],
  ['gc.genHeapSize2', 'm_GC.cGenHeapSize[2]'],
  ['gc.totalCommittedBytes', 'm_GC.cTotalCommittedBytes'],
  ['gc.totalReservedBytes', 'm_GC.cTotalReservedBytes'],
  ['gc.lrgObjSize', 'm_GC.cLrgObjSize'],
  ['gc.surviveFinalize', 'm_GC.cSurviveFinalize'],
  ['gc.handles', 'm_GC.cHandles'],
  ['gc.alloc', 'm_GC.cbAlloc'],
  ['gc.largeAlloc', 'm_GC.cbLargeAlloc'],
  ['gc.inducedGCs', 'm_GC.cInducedGCs'],
  ['gc.timeInGC', 'm_GC.timeInGC'],
  ['gc.timeInGCBase', 'm_GC.timeInGCBase'],
  ['gc.pinnedObj', 'm_GC.cPinnedObj'],
  ['gc.sinkBlocks', 'm_GC.cSinkBlocks'],
  ['contexts.remoteCalls', 'm_Context.cRemoteCalls.Total'],
  ['contexts.channels', 'm_Context.cChannels'],
  ['contexts.proxies', 'm_Context.cProxies'],
  ['contexts.classes', 'm_Context.cClasses'],
  ['contexts.objAlloc', 'm_Context.cObjAlloc'],
  ['contexts.contexts', 'm_Context.cContexts'],
  ['interop.ccw', 'm_Interop.cCCW'],
  ['interop.stubs', 'm_Interop.cStubs'],
  ['interop.marshalling', 'm_Interop.cMarshalling'],
  ['interop.tlbImports', 'm_Interop.cTLBImports'],
  ['interop.tlbExports', 'm_Interop.cTLBExports'],
  ['loading.classesLoadedCurrent', 'm_Loading.cClassesLoaded.Cur'],
  ['loading.classesLoadedTotal', 'm_Loading.cClassesLoaded.Total'],
  ['loading.appDomainsCurrent', 'm_Loading.cAppDomains.Cur'],
  ['loading.appDomainsTotal', 'm_Loading.cAppDomains.Total'],
  ['loading.assembliesCurrent', 'm_Loading.cAssemblies.Cur'],
  ['loading.assembliesTotal', 'm_Loading.cAssemblies.Total'],
  ['loading.timeLoading', 'm_Loading.timeLoading'],
  ['loading.asmSearchLen', 'm_Loading.cAsmSearchLen'],
  ['loading.loadFailures', 'm_Loading.cLoadFailures.Total'],
  ['loading.loaderHeapSize', 'm_Loading.cbLoaderHeapSize'],
  ['loading.appDomainsUnloaded', 'm_Loading.cAppDomainsUnloaded.Total'],
  ['exceptions.thrown', 'm_Excep.cThrown.Total'],
  ['exceptions.filtersExecuted', 'm_Excep.cFiltersExecuted'],
  ['exceptions.finallysExecuted', 'm_Excep.cFinallysExecuted'],
  ['exceptions.throwToCatchStackDepth', 'm_Excep.cThrowToCatchStackDepth'],
  ['locksAndThreads.contention', 'm_LocksAndThreads.cContention.Total'],
  ['locksAndThreads.queueLengthCurrent', 'm_LocksAndThreads.cQueueLength.Cur'],
  ['locksAndThreads.queueLengthTotal', 'm_LocksAndThreads.cQueueLength.Total'],
  ['locksAndThreads.currentThreadsLogical', 'm_LocksAndThreads.cCurrentThreadsLogical'],
  ['locksAndThreads.currentThreadsPhysical', 'm_LocksAndThreads.cCurrentThreadsPhysical'],
  ['locksAndThreads.recognizedThreadsCurrent', 'm_LocksAndThreads.cRecognizedThreads.Cur'],
  ['locksAndThreads.recognizedThreadsTotal', 'm_LocksAndThreads.cRecognizedThreads.Total'],
  ['jit.methodsJitted', 'm_Jit.cMethodsJitted'],
  ['jit.ilJittedCurrent', 'm_Jit.cbILJitted.Cur'],
  ['jit.ilJittedTotal', 'm_Jit.cbILJitted.Total'],
  ['jit.jitFailures', 'm_Jit.cJitFailures'],
  ['jit.timeInJit', 'm_Jit.timeInJit'],
  ['jit.timeInJitBase', 'm_Jit.timeInJitBase'],
  ['security.totalRTChecks', 'm_Security.cTotalRTChecks'],
  ['security.timeAuthorize', 'm_Security.timeAuthorize'],
  ['security.linkChecks', 'm_Security.cLinkChecks'],
  ['security.timeRTchecks', 'm_Security.timeRTchecks'],
  ['security.timeRTchecksBase', 'm_Security.timeRTchecksBase'],
  ['security.stackWalkDepth', 'm_Security.stackWalkDepth'],
];

/** Where a C path lies from the start of the perf block, and how wide it is, by the golden table. */
function locate(table: GoldenBitness, path: string): { offset: number; size: number } {
  const field = (struct: string, name: string): GoldenField => {
    const f = table.structs[struct]?.fields.find((x) => x.name === name);
    if (f === undefined) throw new Error(`golden table has no ${struct}.${name}`);
    return f;
  };
  let struct = 'PerfCounterIPCControlBlock';
  let offset = 0;
  let size = table.structs[struct].size;
  for (const step of path.split('.')) {
    const m = /^(\w+)(?:\[(\d+)\])?$/.exec(step);
    if (m === null) throw new Error(`bad path ${path}`);
    const f = field(struct, m[1]);
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

function put(view: DataView, at: number, size: number, value: number | bigint): void {
  if (size === 2) view.setUint16(at, Number(value), true);
  else if (size === 4) view.setUint32(at, Number(value), true);
  else if (typeof value === 'bigint') view.setBigInt64(at, value, true);
  else view.setBigUint64(at, BigInt(value), true);
}

interface Fixture {
  bytes: Uint8Array;
  /** The sections as decodeBlock must return them. */
  sections: Record<string, Record<string, number | bigint>>;
}

const HEADER_VALUES = { counter: 0x2468, runtimeId: 0x11223344, reserved1: 0x55667788, reserved2: 0x99aabbcc, buildYear: 4, buildNumber: 30319 };

/**
 * A whole 2 KiB block as a `bitness`-bit runtime writes it, every counter holding a value no other
 * counter holds: 64-bit size_t counts above 2^32 (so both halves matter), 32-bit ones below it,
 * and negative and positive LONGLONGs.
 */
function buildBlock(bitness: Bitness, edit?: (view: DataView, table: GoldenBitness) => void): Fixture {
  const table = golden.bitness[String(bitness) as '32' | '64'];
  const bytes = new Uint8Array(2048);
  const view = new DataView(bytes.buffer);
  const hdr = (name: string): GoldenField => {
    const f = table.structs.IPCHeader.fields.find((x) => x.name === name);
    if (f === undefined) throw new Error(`no IPCHeader.${name}`);
    return f;
  };
  const perfAt = table.block.perfOffset;
  put(view, hdr('m_Counter').offset, 4, HEADER_VALUES.counter);
  put(view, hdr('m_RuntimeId').offset, 4, HEADER_VALUES.runtimeId);
  put(view, hdr('m_Reserved1').offset, 4, HEADER_VALUES.reserved1);
  put(view, hdr('m_Reserved2').offset, 4, HEADER_VALUES.reserved2);
  put(view, hdr('m_Version').offset, 2, 4);
  put(view, hdr('m_Flags').offset, 2, bitness === 32 ? 0x1 | 0x2 | 0x4 : 0x1 | 0x2);
  put(view, hdr('m_blockSize').offset, 4, table.block.blockSize);
  put(view, hdr('m_BuildYear').offset, 2, HEADER_VALUES.buildYear);
  put(view, hdr('m_BuildNumber').offset, 2, HEADER_VALUES.buildNumber);
  put(view, hdr('m_numEntries').offset, 4, 1);
  const entry = table.structs.IPCEntry.fields;
  put(view, hdr('m_table').offset + entry[0].offset, 4, perfAt);
  put(view, hdr('m_table').offset + entry[1].offset, 4, table.block.perfSize);
  const perf = table.structs.PerfCounterIPCControlBlock.fields;
  put(view, perfAt + perf[0].offset, 2, table.block.perfSize);
  put(view, perfAt + perf[1].offset, 2, 0x1);

  const sections: Record<string, Record<string, number | bigint>> = {};
  COUNTERS.forEach(([name, path], i) => {
    const { offset, size } = locate(table, path);
    let value: number | bigint;
    if (name === 'loading.timeLoading') value = -0x123456789abcdefn;
    else if (name === 'security.timeAuthorize') value = 0x0fedcba987654321n;
    else if (size === 8) value = 2 ** 40 + 0x10001 * (i + 1);
    else value = 0x01000000 + 0x10101 * (i + 1);
    put(view, perfAt + offset, size, value);
    const [section, field] = name.split('.');
    (sections[section] ??= {})[field] = value;
  });
  edit?.(view, table);
  return { bytes, sections };
}

function sectionsOf(s: IpcBlockSnapshot): Record<string, unknown> {
  return {
    gc: s.gc, contexts: s.contexts, interop: s.interop, loading: s.loading,
    exceptions: s.exceptions, locksAndThreads: s.locksAndThreads, jit: s.jit, security: s.security,
  };
}

function headerField(bitness: Bitness, name: string): number {
  const f = golden.bitness[String(bitness) as '32' | '64'].structs.IPCHeader.fields.find((x) => x.name === name);
  if (f === undefined) throw new Error(name);
  return f.offset;
}

for (const bitness of [32, 64] as const) {
  const table = golden.bitness[String(bitness) as '32' | '64'];
  const other = bitness === 32 ? 64 : 32;

  describe(`decodeBlock, ${bitness}-bit block`, () => {
    it('returns exactly the values written at the golden offsets', () => {
      const { bytes, sections } = buildBlock(bitness);
      const s = decodeBlock(bytes, bitness);
      assert.equal(s.bitness, bitness);
      assert.deepEqual(s.header, {
        ...HEADER_VALUES,
        version: 4,
        flags: bitness === 32 ? 7 : 3,
        blockSize: table.block.blockSize,
        numEntries: 1,
        entries: [{ offset: table.block.perfOffset, size: table.block.perfSize }],
      });
      assert.deepEqual(s.perf, { size: table.block.perfSize, attributes: 1 });
      assert.equal(s.stable, true);
      assert.equal(s.updating, true);
      assert.deepEqual(sectionsOf(s), sections);
      assert.equal(typeof s.loading.timeLoading, 'bigint');
      assert.equal(typeof s.gc.genHeapSize0, 'number');
    });

    it('reads a block that sits inside a bigger buffer (the 4th block of the table)', () => {
      const { bytes, sections } = buildBlock(bitness);
      const tableBytes = new Uint8Array(65536);
      tableBytes.set(bytes, 3 * 2048);
      const s = decodeBlock(tableBytes.subarray(3 * 2048, 4 * 2048), bitness);
      assert.deepEqual(sectionsOf(s), sections);
    });

    it('decodes just the used part (header plus perf block) too', () => {
      const { bytes, sections } = buildBlock(bitness);
      assert.deepEqual(sectionsOf(decodeBlock(bytes.subarray(0, table.block.blockSize), bitness)), sections);
    });

    it('detects its bitness from the header', () => {
      assert.equal(detectBitness(buildBlock(bitness).bytes), bitness);
    });

    it('marks a copy taken while the writer held the sequence counter (odd) as not stable', () => {
      const { bytes } = buildBlock(bitness, (v) => v.setInt32(headerField(bitness, 'm_Counter'), 0x2469, true));
      assert.equal(decodeBlock(bytes, bitness).stable, false);
    });

    it('truncated: names both sizes', () => {
      const { bytes } = buildBlock(bitness);
      const msg = blockError(() => decodeBlock(bytes.subarray(0, 200), bitness), 'truncated');
      assert.match(msg, new RegExp(`200 bytes.*${table.block.blockSize}`));
      assert.match(blockError(() => decodeBlock(bytes.subarray(0, 10), bitness), 'truncated'), new RegExp(`10 bytes.*${table.block.blockSize}`));
    });

    it('wrong version: names both versions', () => {
      const { bytes } = buildBlock(bitness, (v) => v.setUint16(headerField(bitness, 'm_Version'), 3, true));
      const msg = blockError(() => decodeBlock(bytes, bitness), 'wrong-version');
      assert.match(msg, /version 3.*version 4/);
      blockError(() => detectBitness(bytes), 'wrong-version');
    });

    it(`read with the ${other}-bit layout: says it is a ${bitness}-bit block`, () => {
      const { bytes } = buildBlock(bitness);
      const msg = blockError(() => decodeBlock(bytes, other), 'wrong-bitness');
      assert.match(msg, new RegExp(`${bitness}-bit IPC block.*read with the ${other}-bit layout`));
    });

    it('a perf block whose own size is the other bitness\'s: wrong bitness', () => {
      const { bytes } = buildBlock(bitness, (v) => v.setUint16(table.block.perfOffset, golden.bitness[String(other) as '32' | '64'].block.perfSize, true));
      blockError(() => decodeBlock(bytes, bitness), 'wrong-bitness');
    });

    it('a free block (RuntimeId 0) and a never-written one are unused', () => {
      const free = buildBlock(bitness, (v) => v.setUint32(headerField(bitness, 'm_RuntimeId'), 0, true)).bytes;
      assert.match(blockError(() => decodeBlock(free, bitness), 'unused'), /RuntimeId is 0/);
      assert.match(blockError(() => decodeBlock(new Uint8Array(2048), bitness), 'unused'), /no runtime has ever written it/);
    });

    it('a block whose writer has not set the initialized flag yet is unused', () => {
      const flags = bitness === 32 ? 0x1 | 0x4 : 0x1;
      const { bytes } = buildBlock(bitness, (v) => v.setUint16(headerField(bitness, 'm_Flags'), flags, true));
      assert.match(blockError(() => decodeBlock(bytes, bitness), 'unused'), /initialized flag/);
      assert.equal(detectBitness(bytes), bitness);
    });

    it('a perf block whose size field is still 0 is unused', () => {
      const { bytes } = buildBlock(bitness, (v) => v.setUint16(table.block.perfOffset, 0, true));
      assert.match(blockError(() => decodeBlock(bytes, bitness), 'unused'), /not set up yet/);
    });

    it('a directory entry outside the block, or empty, is corrupt', () => {
      const tableAt = headerField(bitness, 'm_table');
      const outside = buildBlock(bitness, (v) => v.setUint32(tableAt, 1900, true)).bytes;
      assert.match(blockError(() => decodeBlock(outside, bitness), 'corrupt'), /bytes 1900 to/);
      const empty = buildBlock(bitness, (v) => v.setUint32(tableAt, 0xffffffff, true)).bytes;
      assert.match(blockError(() => decodeBlock(empty, bitness), 'corrupt'), /no perf-counter section/);
      const overlapping = buildBlock(bitness, (v) => v.setUint32(tableAt, 8, true)).bytes;
      blockError(() => decodeBlock(overlapping, bitness), 'corrupt');
    });

    it('a header size that fits neither bitness is corrupt', () => {
      const { bytes } = buildBlock(bitness, (v) => v.setUint32(headerField(bitness, 'm_blockSize'), 1000, true));
      assert.match(blockError(() => decodeBlock(bytes, bitness), 'corrupt'), /block size of 1000/);
      blockError(() => detectBitness(bytes), 'corrupt');
    });

    it('an x86 flag that contradicts the sizes is corrupt', () => {
      const flags = bitness === 32 ? 0x1 | 0x2 : 0x1 | 0x2 | 0x4;
      const { bytes } = buildBlock(bitness, (v) => v.setUint16(headerField(bitness, 'm_Flags'), flags, true));
      assert.match(blockError(() => decodeBlock(bytes, bitness), 'corrupt'), /x86 flag/);
      blockError(() => detectBitness(bytes), 'corrupt');
    });
  });
}

describe('decodeBlock, implausible values', () => {
  it('a 64-bit count at or above 2^53 is corrupt and named', () => {
    const table = golden.bitness['64'];
    const { bytes } = buildBlock(64, (v) => v.setBigUint64(table.block.perfOffset + locate(table, 'm_GC.cGenHeapSize[0]').offset, 2n ** 60n, true));
    assert.match(blockError(() => decodeBlock(bytes, 64), 'corrupt'), /gc\.genHeapSize0 holds 1152921504606846976/);
  });

  it('the largest exact 64-bit count still decodes as a number', () => {
    const table = golden.bitness['64'];
    const { bytes } = buildBlock(64, (v) => v.setBigUint64(table.block.perfOffset + locate(table, 'm_GC.cbAlloc').offset, BigInt(Number.MAX_SAFE_INTEGER), true));
    assert.equal(decodeBlock(bytes, 64).gc.alloc, Number.MAX_SAFE_INTEGER);
  });

  it('random bytes never decode: always one IpcBlockError, never garbage numbers', () => {
    let seed = 0x9e3779b9;
    const next = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    for (let round = 0; round < 500; round++) {
      const bytes = new Uint8Array(2048);
      for (let i = 0; i < bytes.length; i += 4) new DataView(bytes.buffer).setUint32(i, next(), true);
      for (const bitness of [32, 64] as const) {
        assert.throws(() => decodeBlock(bytes, bitness), IpcBlockError);
      }
      assert.throws(() => detectBitness(bytes), IpcBlockError);
    }
  });

  it('random perf counters behind a valid 64-bit header are caught by the 2^53 check', () => {
    let seed = 12345;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const perfAt = golden.bitness['64'].block.perfOffset;
    for (let round = 0; round < 50; round++) {
      const { bytes } = buildBlock(64, (v) => {
        for (let i = perfAt + 4; i + 4 <= perfAt + 384; i += 4) v.setUint32(i, next(), true);
      });
      assert.throws(() => decodeBlock(bytes, 64), IpcBlockError);
    }
  });
});

describe('readHeader', () => {
  it('reads the header of either bitness without judging it', () => {
    const h = readHeader(buildBlock(32).bytes);
    assert.equal(h.blockSize, 320);
    assert.deepEqual(h.entries, [{ offset: 40, size: 280 }]);
    assert.throws(() => readHeader(new Uint8Array(39)), IpcBlockError);
  });
});
