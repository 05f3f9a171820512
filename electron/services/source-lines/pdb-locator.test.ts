import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locatePdb } from './pdb-locator.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const out = (name: string, file: string): string => join(ROOT, 'test', 'targets', name, 'bin', 'out', file);
const skip = existsSync(out('Scenarios', 'Scenarios.pdb')) && existsSync(out('CpuBench', 'CpuBench.dll')) ? false : 'the C# targets are not built (npm run build:targets)';

test('the PDB beside an assembly, the one embedded in it, and none when the beside one is another build\'s', { skip }, () => {
  const beside = locatePdb(out('Scenarios', 'Scenarios.dll'));
  assert.ok(typeof beside !== 'string', String(beside));
  assert.equal(beside.source, out('Scenarios', 'Scenarios.pdb'));
  const embedded = locatePdb(out('CpuBench', 'CpuBench.dll'));
  assert.ok(typeof embedded !== 'string', String(embedded));
  assert.equal(embedded.source, 'embedded');
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-pdb-'));
  try {
    // Scenarios.dll beside Demo's PDB renamed: a PDB, but not this build's.
    copyFileSync(out('Scenarios', 'Scenarios.dll'), join(dir, 'Scenarios.dll'));
    copyFileSync(out('Demo', 'Demo.pdb'), join(dir, 'Scenarios.pdb'));
    // The wrong PDB is passed over; the path the build wrote into the dll (its obj/ folder) still has the right one.
    const other = locatePdb(join(dir, 'Scenarios.dll'));
    if (typeof other === 'string') assert.match(other, /belongs to another build of it/);
    else assert.notEqual(other.source, join(dir, 'Scenarios.pdb'));
    const fake = join(dir, 'Fake.dll');
    copyFileSync(out('Demo', 'Demo.dll'), fake);
    copyFileSync(out('Scenarios', 'Scenarios.pdb'), join(dir, 'Fake.pdb'));
    const located = locatePdb(fake);
    assert.ok(typeof located === 'string' ? /belongs to another build/.test(located) : located.source !== join(dir, 'Fake.pdb'), String(located));
    rmSync(join(dir, 'Fake.pdb'));
    // A dll whose recorded PDB path is gone: only the folder beside it is left to look in.
    rmSync(join(dir, 'Scenarios.pdb'));
    const moved = readFileSync(out('Scenarios', 'Scenarios.dll'));
    const at = moved.indexOf(Buffer.from('Scenarios.pdb\0'));
    assert.ok(at > 0, 'the CodeView path in the dll');
    moved[at - 2] = 0x5f; // …/obj/Release/ → …/obj/Releas_/
    writeFileSync(join(dir, 'Moved.dll'), moved);
    assert.match(String(locatePdb(join(dir, 'Moved.dll'))), /^No portable PDB was found for .*Moved\.dll/);
    copyFileSync(out('Demo', 'Demo.pdb'), join(dir, 'Moved.pdb'));
    assert.match(String(locatePdb(join(dir, 'Moved.dll'))), /belongs to another build of it/);
    writeFileSync(join(dir, 'x.dll'), 'not a dll');
    assert.match(String(locatePdb(join(dir, 'x.dll'))), /not a PE file/);
    assert.match(String(locatePdb(join(dir, 'missing.dll'))), /cannot be read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
