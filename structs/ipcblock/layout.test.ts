// Every koffi struct of layout.ts against golden-layout.json, for both bitnesses; the C++ header
// is checked against the same table by native-profiler/tests/ipc_block_layout_test.cpp.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import koffi from 'koffi';
import {
  BITNESSES,
  COUNTER_FIELDS,
  IPC_BLOCK_SIZE,
  IPC_BLOCK_TABLE_SIZE,
  IPC_BLOCK_VERSION,
  IPC_EMPTY_ENTRY_OFFSET,
  IPC_ENTRY_COUNT,
  IPC_ENTRY_PERF_COUNTERS,
  IPC_FLAG_INITIALIZED,
  IPC_FLAG_USES_FLAGS,
  IPC_FLAG_X86,
  IPC_NUM_BLOCKS_IN_TABLE,
  IPC_SEQUENCE_COUNTER_OFFSET,
  IPC_SEQUENCE_COUNTER_SIZE,
  MAX_TRACKED_GENS,
  PERF_ATTR_GLOBAL,
  PERF_ATTR_ON,
  SECTIONS,
  type StructName,
  camelCaseName,
  counterSlots,
  ipcLayout,
} from './layout.js';

interface GoldenField { name: string; offset: number; size: number; type: string }
interface GoldenStruct { size: number; align: number; pack: number | null; fields: GoldenField[] }
interface GoldenBitness {
  block: { perfOffset: number; perfSize: number; blockSize: number; headerSize: number; sequenceCounterOffset: number; sequenceCounterSize: number };
  structs: Record<string, GoldenStruct>;
}
interface Golden { constants: Record<string, number>; bitness: Record<'32' | '64', GoldenBitness> }

// Tests run from dist/structs/ipcblock/; the table stays in the source tree.
const golden = JSON.parse(readFileSync(new URL('../../../structs/ipcblock/golden-layout.json', import.meta.url), 'utf8')) as Golden;

for (const bitness of BITNESSES) {
  const table = golden.bitness[String(bitness) as '32' | '64'];
  const layout = ipcLayout(bitness);

  describe(`ipcblock layout, ${bitness}-bit`, () => {
    it('declares exactly the structs of the golden table', () => {
      assert.deepEqual(Object.keys(layout.structs).sort(), Object.keys(table.structs).sort());
    });

    for (const [name, spec] of Object.entries(table.structs)) {
      it(`${name}: koffi size, alignment and every field offset and size match the golden table`, () => {
        const type = layout.structs[name as StructName];
        assert.equal(koffi.sizeof(type), spec.size, `sizeof ${name}`);
        assert.equal(koffi.alignof(type), spec.align, `alignof ${name}`);
        assert.deepEqual(Object.keys(type.members ?? {}), spec.fields.map((f) => f.name), `members of ${name}, in order`);
        for (const f of spec.fields) {
          assert.equal(koffi.offsetof(type, f.name), f.offset, `offsetof ${name}.${f.name}`);
          const member = type.members?.[f.name];
          assert.ok(member !== undefined);
          assert.equal(koffi.sizeof(member.type), f.size, `sizeof ${name}.${f.name}`);
        }
      });
    }

    it('block facts: perf block after the 40-byte header, m_blockSize, sequence counter', () => {
      assert.equal(layout.headerSize, table.block.headerSize);
      assert.equal(layout.perfOffset, table.block.perfOffset);
      assert.equal(layout.perfSize, table.block.perfSize);
      assert.equal(layout.blockSize, table.block.blockSize);
      assert.equal(layout.perfAlign, table.structs.PerfCounterIPCControlBlock.align);
      assert.equal(koffi.offsetof(layout.structs.IPCHeader, 'm_Counter'), table.block.sequenceCounterOffset);
      assert.equal(IPC_SEQUENCE_COUNTER_OFFSET, table.block.sequenceCounterOffset);
      assert.equal(IPC_SEQUENCE_COUNTER_SIZE, table.block.sequenceCounterSize);
      assert.equal(koffi.sizeof(layout.structs.IPCControlBlock), IPC_BLOCK_SIZE);
    });

    it('every counter slot sits where the golden table puts it', () => {
      // Computed from the golden table alone: section offset + member offset + element/part offset.
      const structs = table.structs;
      const perfFields = structs.PerfCounterIPCControlBlock.fields;
      const fieldOf = (struct: string, member: string): GoldenField => {
        const f = structs[struct].fields.find((x) => x.name === member);
        assert.ok(f !== undefined, `${struct}.${member} is in the golden table`);
        return f;
      };
      for (const slot of counterSlots(bitness)) {
        const [sectionMember, member, part] = slot.field.path.split('.');
        const section = SECTIONS.find((s) => s.member === sectionMember);
        assert.ok(section !== undefined);
        const sectionAt = perfFields.find((f) => f.name === sectionMember)?.offset;
        assert.ok(sectionAt !== undefined);
        const m = /^(\w+)(?:\[(\d+)\])?$/.exec(member);
        assert.ok(m !== null);
        const f = fieldOf(section.struct, m[1]);
        let offset = sectionAt + f.offset;
        if (m[2] !== undefined) {
          const count = Number(/\[(\d+)\]$/.exec(f.type)?.[1]);
          offset += Number(m[2]) * (f.size / count);
        }
        if (part !== undefined) offset += fieldOf(f.type, part).offset;
        assert.equal(slot.offset, offset, `${slot.field.section}.${slot.field.name} (${slot.field.path})`);
        const width = slot.reader === 'u32' ? 4 : 8;
        const scalarSize = part !== undefined ? fieldOf(f.type, part).size : m[2] !== undefined ? f.size / Number(/\[(\d+)\]$/.exec(f.type)?.[1]) : f.size;
        assert.equal(width, scalarSize, `width of ${slot.field.path}`);
      }
    });
  });
}

describe('ipcblock constants', () => {
  it('match the golden table', () => {
    const c = golden.constants;
    assert.equal(IPC_BLOCK_SIZE, c.IPC_BLOCK_SIZE);
    assert.equal(IPC_NUM_BLOCKS_IN_TABLE, c.IPC_NUM_BLOCKS_IN_TABLE);
    assert.equal(IPC_BLOCK_TABLE_SIZE, c.IPC_BLOCK_TABLE_SIZE);
    assert.equal(IPC_BLOCK_VERSION, c.VER_IPC_BLOCK);
    assert.equal(IPC_ENTRY_PERF_COUNTERS, c.eIPC_PerfCounters);
    assert.equal(IPC_ENTRY_COUNT, c.eIPC_MAX);
    assert.equal(IPC_EMPTY_ENTRY_OFFSET, c.EMPTY_ENTRY_OFFSET);
    assert.equal(IPC_FLAG_USES_FLAGS, c.IPC_FLAG_USES_FLAGS);
    assert.equal(IPC_FLAG_INITIALIZED, c.IPC_FLAG_INITIALIZED);
    assert.equal(IPC_FLAG_X86, c.IPC_FLAG_X86);
    assert.equal(PERF_ATTR_ON, c.PERF_ATTR_ON);
    assert.equal(PERF_ATTR_GLOBAL, c.PERF_ATTR_GLOBAL);
    assert.equal(MAX_TRACKED_GENS, c.MAX_TRACKED_GENS);
  });
});

describe('ipcblock camelCase names', () => {
  it('gives the names the issue fixes', () => {
    const names = new Set(COUNTER_FIELDS.map((f) => `${f.section}.${f.name}`));
    for (const n of ['gc.genCollections0', 'gc.inducedGCs', 'gc.genHeapSize0', 'exceptions.thrown', 'jit.methodsJitted']) {
      assert.ok(names.has(n), n);
    }
    assert.deepEqual(SECTIONS.map((s) => s.key), ['gc', 'contexts', 'interop', 'loading', 'exceptions', 'locksAndThreads', 'jit', 'security']);
  });

  it('derives the rest by one rule', () => {
    assert.equal(camelCaseName('cGenCollections'), 'genCollections');
    assert.equal(camelCaseName('cbPromotedMem'), 'promotedMem');
    assert.equal(camelCaseName('cProcessID'), 'processID');
    assert.equal(camelCaseName('cCCW'), 'ccw');
    assert.equal(camelCaseName('cTLBImports'), 'tlbImports');
    assert.equal(camelCaseName('cbILJitted'), 'ilJitted');
    assert.equal(camelCaseName('cTotalRTChecks'), 'totalRTChecks');
    assert.equal(camelCaseName('timeInGC'), 'timeInGC');
    assert.equal(camelCaseName('stackWalkDepth'), 'stackWalkDepth');
    assert.equal(camelCaseName('cContexts'), 'contexts');
  });

  it('names every scalar once per section, 67 in all', () => {
    assert.equal(COUNTER_FIELDS.length, 67);
    for (const s of SECTIONS) {
      const names = COUNTER_FIELDS.filter((f) => f.section === s.key).map((f) => f.name);
      assert.equal(new Set(names).size, names.length, `${s.key} has duplicate names`);
    }
    assert.deepEqual(COUNTER_FIELDS.filter((f) => f.value === 'bigint').map((f) => `${f.section}.${f.name}`), ['loading.timeLoading', 'security.timeAuthorize']);
  });

  it('README.md lists every field with its camelCase name, C path and offsets', () => {
    const readme = readFileSync(new URL('../../../structs/ipcblock/README.md', import.meta.url), 'utf8');
    const rows = new Set<string>();
    for (const line of readme.split('\n')) {
      const m = /^\| `([\w.]+)` \| `([\w.[\]]+)` \| [^|]+ \| (\d+) \| (\d+) \|$/.exec(line);
      if (m !== null) rows.add(`${m[1]} ${m[2]} ${m[3]} ${m[4]}`);
    }
    const s32 = counterSlots(32);
    const s64 = counterSlots(64);
    const expected = new Set(COUNTER_FIELDS.map((f, i) => `${f.section}.${f.name} ${f.path} ${s32[i].offset} ${s64[i].offset}`));
    assert.deepEqual([...rows].filter((r) => !expected.has(r)), [], 'README rows that are not fields');
    assert.deepEqual([...expected].filter((r) => !rows.has(r)), [], 'fields missing from the README table');
  });
});
