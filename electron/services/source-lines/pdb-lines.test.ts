import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PdbLines } from './pdb-lines.js';
import { Table } from '../../../structs/formats/portable-pdb/metadata.js';
import { methodDefinitions } from '../../../structs/formats/portable-pdb/method-names.js';
import { PeFile } from '../../../structs/formats/portable-pdb/pe-file.js';
import type { ModuleInfo } from '../../../structs/profile/recording.js';
import { ModuleKind } from '../../../structs/wire/records.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const dll = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const skip = existsSync(dll) ? false : 'the C# targets are not built (npm run build:targets)';

test('lines from the PDB of the recorded build; another build, a missing file or a native module give none, each said once', { skip }, () => {
  const pe = new PeFile(readFileSync(dll));
  const mvid = Array.from(pe.metadata.guid(pe.metadata.cell(Table.Module, 1, 2)), (b) => b.toString(16).padStart(2, '0')).join('');
  const heavy = methodDefinitions(pe.metadata).find((m) => m.name === 'Clrscope.Targets.Scenarios.CpuWork.Heavy')!;
  const source = readFileSync(join(ROOT, 'test', 'targets', 'Scenarios', 'CpuRatio.cs'), 'utf8').split('\n');
  const module = (path: string, id: string, kind: number = ModuleKind.Managed): ModuleInfo => ({ id: 1, kind, path, mvid: id });
  const lines = new PdbLines();
  // Some IL offset of Heavy lands on its `x ^= x << 13;` line (the loop body's first statement).
  const shift = source.findIndex((l, i) => i > source.findIndex((s) => s.includes('ulong Heavy(')) && l.includes('x ^= x << 13;')) + 1;
  const found = new Set<number>();
  for (let il = 0; il < 64; il++) {
    const at = lines.lookup(module(dll, mvid), heavy.token, il);
    if (at !== null) {
      assert.match(at.file, /CpuRatio\.cs$/);
      found.add(at.line);
    }
  }
  assert.ok(found.has(shift), `line ${shift} among ${[...found].join(', ')}`);
  assert.deepEqual(lines.notes, []);
  // Same path, another build's MVID: refused, said once however often asked.
  const other = 'ff'.repeat(16);
  assert.equal(lines.lookup(module(dll, other), heavy.token, 0), null);
  assert.equal(lines.lookup(module(dll, other), heavy.token, 4), null);
  assert.equal(lines.notes.length, 1);
  assert.match(lines.notes[0], /is another build than the one recorded/);
  // Unknown MVID (all zeros): the file is taken as it is.
  assert.notEqual(lines.lookup(module(dll, '0'.repeat(32)), heavy.token, 0), null);
  assert.equal(lines.lookup(module('/nonexistent/App.dll', mvid), heavy.token, 0), null);
  assert.match(lines.notes[1], /cannot be read/);
  assert.equal(lines.lookup(module('/usr/lib/x86_64-linux-gnu/libc.so.6', '0'.repeat(32), ModuleKind.Native), 1, 0), null);
  assert.equal(lines.notes.length, 2, 'a native module is not looked for');
});
