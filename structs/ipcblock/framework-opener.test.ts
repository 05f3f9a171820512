// The Windows opener's sequence of Win32 calls, run against a fake API on any OS: which names,
// flags, SIDs and access rights reach which call, in which order, that every handle is released
// on every path, and that each failure ends in one sentence. The fake "maps" tables built byte by
// byte from golden-layout.json. Whether real Windows accepts these calls is not tested here
// (README.md: unverified on a live Windows machine).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type FrameworkIpcApi,
  type NativeHandle,
  BLOCK_TABLE_OBJECT_NAME,
  READER_NAMESPACE_PREFIX,
  WRITER_NAMESPACE_PREFIX,
  blockTableName,
  boundaryDescriptorName,
  openFrameworkBlock,
  openFrameworkTable,
  sidLength,
  win32ErrorText,
} from './framework-opener.js';
import { IpcBlockError } from './ipc-block-error.js';
import { decodeBlock } from './decode.js';
import { type MappedBlock, memoryFromBytes } from './block-memory.js';
import { buildGoldenTable } from './golden-fixtures.js';
import { blockError } from './expect-block-error.js';

const ME = 100;
const TARGET = 4242;
/** S-1-1-0 as CreateWellKnownSid(WinWorldSid) writes it. */
const EVERYONE = Uint8Array.from([1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
/** An AppContainer SID, S-1-15-2-1-2-3-4-5-6-7. */
const CONTAINER = Uint8Array.from([1, 8, 0, 0, 0, 0, 0, 15, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0]);

type Step = 'createBoundaryDescriptor' | 'worldSid' | 'addSidToBoundaryDescriptor' | 'openPrivateNamespace' | 'openFileMapping' | 'mapViewOfFile';

/** Records every call as text and tracks what is open; fails `failAt` with `error`. */
class FakeApi implements FrameworkIpcApi {
  readonly currentPid = ME;
  readonly calls: string[] = [];
  readonly open = new Set<string>();
  private next = 0x1000n;
  private error = 0;

  constructor(
    private readonly table: Uint8Array,
    private readonly failAt?: Step,
    private readonly failCode = 2,
    private readonly container: Uint8Array | null = null,
  ) {}

  private handle(kind: string): NativeHandle {
    this.next += 0x10n;
    this.open.add(`${kind}:${this.next}`);
    return this.next;
  }

  private fails(step: Step): boolean {
    if (this.failAt !== step) return false;
    this.error = this.failCode;
    return true;
  }

  lastError(): number {
    return this.error;
  }
  createBoundaryDescriptor(name: string, flags: number): NativeHandle | null {
    this.calls.push(`CreateBoundaryDescriptorW(${name}, ${flags})`);
    return this.fails('createBoundaryDescriptor') ? null : this.handle('descriptor');
  }
  addSidToBoundaryDescriptor(descriptor: NativeHandle, sid: Uint8Array): NativeHandle | null {
    this.calls.push(`AddSIDToBoundaryDescriptor(${descriptor}, [${sid.join(',')}])`);
    if (this.fails('addSidToBoundaryDescriptor')) return null;
    // The real call may reallocate the descriptor: hand back a new one.
    assert.ok(this.open.delete(`descriptor:${descriptor}`), 'adds to a live descriptor');
    return this.handle('descriptor');
  }
  deleteBoundaryDescriptor(descriptor: NativeHandle): void {
    this.calls.push(`DeleteBoundaryDescriptor(${descriptor})`);
    assert.ok(this.open.delete(`descriptor:${descriptor}`), `deletes a live descriptor ${descriptor}`);
  }
  worldSid(): Uint8Array | null {
    this.calls.push('CreateWellKnownSid(WinWorldSid)');
    return this.fails('worldSid') ? null : EVERYONE;
  }
  appContainerSidOf(pid: number): Uint8Array | null {
    this.calls.push(`AppContainerSid(${pid})`);
    return this.container;
  }
  openPrivateNamespace(descriptor: NativeHandle, aliasPrefix: string): NativeHandle | null {
    this.calls.push(`OpenPrivateNamespaceW(${descriptor}, ${aliasPrefix})`);
    assert.ok(this.open.has(`descriptor:${descriptor}`), 'opens with the live (moved) descriptor');
    return this.fails('openPrivateNamespace') ? null : this.handle('namespace');
  }
  closePrivateNamespace(namespace: NativeHandle, flags: number): boolean {
    this.calls.push(`ClosePrivateNamespace(${namespace}, ${flags})`);
    assert.ok(this.open.delete(`namespace:${namespace}`));
    return true;
  }
  openFileMapping(access: number, name: string): NativeHandle | null {
    this.calls.push(`OpenFileMappingW(${access}, ${name})`);
    return this.fails('openFileMapping') ? null : this.handle('mapping');
  }
  mapViewOfFile(mapping: NativeHandle, access: number, bytes: number): NativeHandle | null {
    this.calls.push(`MapViewOfFile(${mapping}, ${access}, ${bytes})`);
    return this.fails('mapViewOfFile') ? null : this.handle('view');
  }
  memory(address: NativeHandle, bytes: number, source: string, release: () => void): MappedBlock {
    assert.ok(this.open.has(`view:${address}`));
    assert.equal(bytes, this.table.length);
    return memoryFromBytes(this.table, { source, release });
  }
  unmapViewOfFile(address: NativeHandle): boolean {
    this.calls.push(`UnmapViewOfFile(${address})`);
    assert.ok(this.open.delete(`view:${address}`));
    return true;
  }
  closeHandle(handle: NativeHandle): boolean {
    this.calls.push(`CloseHandle(${handle})`);
    assert.ok(this.open.delete(`mapping:${handle}`));
    return true;
  }
}

/** A table whose only block is a 64-bit runtime's, at index 2, naming `pid`. */
function tableFor(pid: number): Uint8Array {
  return buildGoldenTable({ 2: { bitness: 64, runtimeId: 0x1b, processId: pid, counters: { 'm_Excep.cThrown.Total': 12 } } });
}

describe('names', () => {
  it('are the runtime\'s: boundary Cor_CLR_IPCBlock_<decimal pid>, aliases Cor_CLR_WRITER / Cor_CLR_READER, object Cor_SxSPublic_IPCBlock', () => {
    assert.equal(boundaryDescriptorName(4242), 'Cor_CLR_IPCBlock_4242');
    assert.equal(boundaryDescriptorName(7), 'Cor_CLR_IPCBlock_7');
    assert.equal(blockTableName(WRITER_NAMESPACE_PREFIX), 'Cor_CLR_WRITER\\Cor_SxSPublic_IPCBlock');
    assert.equal(blockTableName(READER_NAMESPACE_PREFIX), 'Cor_CLR_READER\\Cor_SxSPublic_IPCBlock');
    assert.equal(BLOCK_TABLE_OBJECT_NAME, 'Cor_SxSPublic_IPCBlock');
  });

  it('sidLength reads the SID header: 8 bytes plus 4 per sub-authority', () => {
    assert.equal(sidLength(EVERYONE), 12);
    assert.equal(sidLength(CONTAINER.subarray(0, 8)), 40);
    assert.equal(sidLength(Uint8Array.from([2, 1, 0, 0, 0, 0, 0, 1])), null);
    assert.equal(sidLength(Uint8Array.from([1, 16, 0, 0, 0, 0, 0, 1])), null);
    assert.equal(sidLength(Uint8Array.from([1, 1])), null);
  });

  it('win32ErrorText names the common codes', () => {
    assert.equal(win32ErrorText(5), 'Windows error 5, access denied');
    assert.equal(win32ErrorText(2), 'Windows error 2, not found');
    assert.equal(win32ErrorText(1314), 'Windows error 1314');
  });
});

describe('openFrameworkTable, another process', () => {
  it('rebuilds the boundary descriptor, opens the namespace as Cor_CLR_READER, maps 64 KiB read-only, then lets go of namespace and descriptor', () => {
    const api = new FakeApi(tableFor(TARGET));
    const table = openFrameworkTable(api, TARGET);
    assert.deepEqual(api.calls, [
      'CreateBoundaryDescriptorW(Cor_CLR_IPCBlock_4242, 1)',
      'CreateWellKnownSid(WinWorldSid)',
      'AppContainerSid(4242)',
      'AddSIDToBoundaryDescriptor(4112, [1,1,0,0,0,0,0,1,0,0,0,0])',
      'OpenPrivateNamespaceW(4128, Cor_CLR_READER)',
      'OpenFileMappingW(4, Cor_CLR_READER\\Cor_SxSPublic_IPCBlock)',
      'MapViewOfFile(4160, 4, 65536)',
      'ClosePrivateNamespace(4144, 0)',
      'DeleteBoundaryDescriptor(4128)',
    ]);
    assert.deepEqual([...api.open].sort(), ['mapping:4160', 'view:4176']);
    assert.equal(table.size, 65536);
    assert.equal(table.source, 'Cor_CLR_READER\\Cor_SxSPublic_IPCBlock of process 4242');
    table.close();
    table.close();
    assert.deepEqual(api.calls.slice(9), ['UnmapViewOfFile(4176)', 'CloseHandle(4160)']);
    assert.equal(api.open.size, 0);
  });

  it('adds the target\'s AppContainer SID after Everyone when the target runs in one', () => {
    const api = new FakeApi(tableFor(TARGET), undefined, 0, CONTAINER);
    openFrameworkTable(api, TARGET).close();
    const adds = api.calls.filter((c) => c.startsWith('AddSIDToBoundaryDescriptor'));
    assert.deepEqual(adds, [
      'AddSIDToBoundaryDescriptor(4112, [1,1,0,0,0,0,0,1,0,0,0,0])',
      `AddSIDToBoundaryDescriptor(4128, [${CONTAINER.join(',')}])`,
    ]);
    assert.ok(api.calls.includes('OpenPrivateNamespaceW(4144, Cor_CLR_READER)'));
    assert.equal(api.open.size, 0);
  });

  const failures: readonly (readonly [Step, number, RegExp])[] = [
    ['createBoundaryDescriptor', 8, /Cannot build the boundary descriptor Cor_CLR_IPCBlock_4242 .*Windows error 8, not enough memory/],
    ['worldSid', 87, /Cannot create the Everyone SID .*Windows error 87/],
    ['addSidToBoundaryDescriptor', 87, /Cannot add a SID to the boundary descriptor Cor_CLR_IPCBlock_4242/],
    ['openPrivateNamespace', 2, /Process 4242 has no \.NET Framework 4 counters: no runtime in it created the private namespace Cor_CLR_IPCBlock_4242 \(Windows error 2, not found\)/],
    ['openPrivateNamespace', 3, /Process 4242 has no \.NET Framework 4 counters/],
    ['openPrivateNamespace', 5, /This user may not open process 4242's \.NET Framework counters \(Windows error 5, access denied\): the runtime lets only the process's owner, Administrators, Performance Monitor Users and Performance Log Users read it/],
    ['openPrivateNamespace', 1314, /Cannot open the private namespace Cor_CLR_IPCBlock_4242 of process 4242 \(Windows error 1314\)/],
    ['openFileMapping', 2, /has the \.NET Framework's private namespace but no Cor_SxSPublic_IPCBlock in it/],
    ['openFileMapping', 5, /This user may not read process 4242's \.NET Framework block table/],
    ['mapViewOfFile', 5, /Cannot map the \.NET Framework block table Cor_CLR_READER\\Cor_SxSPublic_IPCBlock of process 4242 \(Windows error 5, access denied\)/],
  ];
  for (const [step, code, pattern] of failures) {
    it(`${step} failing with Windows error ${code}: one sentence, nothing left open`, () => {
      const api = new FakeApi(tableFor(TARGET), step, code);
      assert.match(blockError(() => openFrameworkTable(api, TARGET), 'missing'), pattern);
      assert.deepEqual([...api.open], []);
      // The namespace, once opened, is closed without destroying it (flag 0).
      for (const call of api.calls.filter((c) => c.startsWith('ClosePrivateNamespace'))) assert.match(call, /, 0\)$/);
    });
  }
});

describe('openFrameworkTable, this process', () => {
  it('opens Cor_CLR_WRITER\\Cor_SxSPublic_IPCBlock directly, without a boundary descriptor', () => {
    const api = new FakeApi(tableFor(ME));
    const table = openFrameworkTable(api, ME);
    assert.deepEqual(api.calls, ['OpenFileMappingW(4, Cor_CLR_WRITER\\Cor_SxSPublic_IPCBlock)', 'MapViewOfFile(4112, 4, 65536)']);
    assert.equal(table.source, 'Cor_CLR_WRITER\\Cor_SxSPublic_IPCBlock of process 100');
    table.close();
    assert.equal(api.open.size, 0);
  });

  it('no runtime in this process: says so in one sentence', () => {
    const api = new FakeApi(tableFor(ME), 'openFileMapping', 3);
    assert.match(blockError(() => openFrameworkTable(api, ME), 'missing'), /This process \(pid 100\) has no \.NET Framework 4 runtime loaded: there is no Cor_CLR_WRITER\\Cor_SxSPublic_IPCBlock/);
    assert.match(blockError(() => openFrameworkTable(new FakeApi(tableFor(ME), 'openFileMapping', 5), ME), 'missing'), /Cannot open this process's .*access denied/);
    const mapFails = new FakeApi(tableFor(ME), 'mapViewOfFile', 8);
    blockError(() => openFrameworkTable(mapFails, ME), 'missing');
    assert.equal(mapFails.open.size, 0);
  });
});

describe('openFrameworkBlock', () => {
  it('maps the table, picks the runtime\'s block and hands out a live 2 KiB accessor of it', () => {
    const bytes = tableFor(TARGET);
    const api = new FakeApi(bytes);
    const { block, choice } = openFrameworkBlock(api, TARGET);
    assert.deepEqual([choice.index, choice.runtimeId, choice.bitness], [2, 0x1b, 64]);
    assert.equal(block.size, 2048);
    assert.equal(block.access, 'bytes');
    assert.equal(block.source, 'Cor_CLR_READER\\Cor_SxSPublic_IPCBlock of process 4242, block 2 (runtime 0x1b)');
    const copy = new Uint8Array(2048);
    block.read(copy, 0, 2048);
    assert.deepEqual(copy, bytes.subarray(2 * 2048, 3 * 2048), 'block 2 of the table');
    const s = decodeBlock(copy, choice.bitness);
    assert.equal(s.gc.processID, TARGET);
    assert.equal(s.exceptions.thrown, 12);
    bytes[2 * 2048 + 4] = 0x1c;
    block.read(copy, 0, 8);
    assert.equal(copy[4], 0x1c, 'read live, not copied once');
    bytes[2 * 2048] = 4;
    assert.equal(block.readInt32(0), 4, 'the counter is read live');
    assert.throws(() => block.read(copy, 2047, 2), RangeError, 'reads stay inside the block');
    block.close();
    assert.equal(api.open.size, 0);
    assert.throws(() => block.readInt32(0), /read after it was closed/);
  });

  it('a mapping whose memory cannot be read as asked is released again', () => {
    const api = new FakeApi(tableFor(TARGET));
    api.memory = () => {
      throw new IpcBlockError('missing', 'This runtime forbids ArrayBuffers over outside memory.');
    };
    blockError(() => openFrameworkBlock(api, TARGET), 'missing');
    assert.equal(api.open.size, 0);
    assert.deepEqual(api.calls.slice(-4), ['UnmapViewOfFile(4176)', 'CloseHandle(4160)', 'ClosePrivateNamespace(4144, 0)', 'DeleteBoundaryDescriptor(4128)']);
  });

  it('a table whose blocks name another process: unmapped again, one sentence', () => {
    const api = new FakeApi(tableFor(999));
    assert.match(blockError(() => openFrameworkBlock(api, TARGET), 'corrupt'), /^In process 4242's \.NET Framework block table, no block can be read: of the 32 blocks, 1 names another process, 31 are free\.$/);
    assert.equal(api.open.size, 0);
  });

  it('an empty table (runtime gone): unused, and unmapped again', () => {
    const api = new FakeApi(new Uint8Array(65536));
    assert.match(blockError(() => openFrameworkBlock(api, TARGET), 'unused'), /^In process 4242's \.NET Framework block table, no runtime holds a block: all 32 blocks are free\.$/);
    assert.equal(api.open.size, 0);
  });

  it('passes the choice options through (runtime, bitness)', () => {
    const api = new FakeApi(tableFor(TARGET));
    assert.match(blockError(() => openFrameworkBlock(api, TARGET, { bitness: 32 }), 'wrong-bitness'), /other bitness/);
    assert.match(blockError(() => openFrameworkBlock(new FakeApi(tableFor(TARGET)), TARGET, { runtimeId: 5 }), 'missing'), /runtime 0x5 \(usable blocks belong to 0x1b\)/);
  });
});
