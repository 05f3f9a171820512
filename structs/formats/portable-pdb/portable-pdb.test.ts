import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { ByteReader } from './byte-reader.js';
import { methodDefinitions } from './method-names.js';
import { PdbFormatError } from './pdb-format-error.js';
import { PeFile } from './pe-file.js';
import { PortablePdb } from './portable-pdb.js';

// The C# targets as scripts/build-targets.sh builds them: Scenarios with its PDB beside it,
// CpuBench with its PDB embedded in the dll.
const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const out = (name: string, file: string): string => join(ROOT, 'test', 'targets', name, 'bin', 'out', file);
const built = existsSync(out('Scenarios', 'Scenarios.pdb')) && existsSync(out('CpuBench', 'CpuBench.dll'));
const skip = built ? false : 'the C# targets are not built (npm run build:targets)';

/** The 1-based line of the first line of `file` containing `marker`. */
function lineOf(file: string, marker: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(marker));
  assert.ok(i >= 0, `${marker} in ${file}`);
  return i + 1;
}

test('compressed integers decode as ECMA-335 II.23.2 gives them', () => {
  const r = new ByteReader(Uint8Array.from([0x03, 0x7f, 0x80, 0x80, 0xae, 0x57, 0xbf, 0xff, 0xc0, 0x00, 0x40, 0x00, 0xdf, 0xff, 0xff, 0xff]), 'test');
  assert.deepEqual([r.compressedUnsigned(), r.compressedUnsigned(), r.compressedUnsigned(), r.compressedUnsigned(), r.compressedUnsigned(), r.compressedUnsigned(), r.compressedUnsigned()],
    [0x03, 0x7f, 0x80, 0x2e57, 0x3fff, 0x4000, 0x1fffffff]);
  const s = new ByteReader(Uint8Array.from([0x06, 0x7b, 0x80, 0x80, 0x01, 0xc0, 0x00, 0x40, 0x00, 0x80, 0x01, 0xdf, 0xff, 0xff, 0xfe, 0xc0, 0x00, 0x00, 0x01]), 'test');
  assert.deepEqual(Array.from({ length: 8 }, () => s.compressedSigned()), [3, -3, 64, -64, 8192, -8192, 268435455, -268435456]);
  assert.throws(() => new ByteReader(Uint8Array.from([0xff]), 'blob').compressedUnsigned(), PdbFormatError);
  assert.throws(() => new ByteReader(Uint8Array.from([0x80]), 'blob').compressedUnsigned(), /cut short/);
});

test('a PDB beside its assembly: the assembly names it, the ids match, and the hot loop\'s IL maps to its line', { skip }, () => {
  const pe = new PeFile(readFileSync(out('Scenarios', 'Scenarios.dll')));
  const pdb = new PortablePdb(readFileSync(out('Scenarios', 'Scenarios.pdb')));
  const cv = pe.codeView();
  assert.ok(cv !== null);
  assert.match(cv.path, /Scenarios\.pdb$/);
  assert.deepEqual(Array.from(cv.guid), Array.from(pdb.guid), 'the CodeView GUID is the PDB id\'s');
  assert.equal(pe.embeddedPdb(), null);
  const heavy = methodDefinitions(pe.metadata).find((m) => m.name === 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
  assert.ok(heavy !== undefined, 'CpuWork.Heavy among the MethodDefs');
  const points = pdb.sequencePoints(heavy.token);
  const source = join(ROOT, 'test', 'targets', 'Scenarios', 'CpuRatio.cs');
  const shiftLine = lineOf(source, 'x ^= x << 13;');
  const visible = points.filter((p) => !p.hidden);
  assert.ok(visible.length >= 5, `${visible.length} sequence points`);
  assert.equal(pdb.documentName(visible[0].document).replace(/\\\\/g, '/').split('/').pop(), 'CpuRatio.cs');
  const loopLine = visible.find((p) => p.startLine === shiftLine);
  assert.ok(loopLine !== undefined, `a sequence point on line ${shiftLine}: ${visible.map((p) => p.startLine).join(',')}`);
  assert.ok(visible.every((p, i) => i === 0 || p.ilOffset > visible[i - 1].ilOffset), 'IL offsets increase');
  // Every IL offset of the statement's range maps to it; the method's first IL to its opening.
  const next = points.find((p) => p.ilOffset > loopLine.ilOffset)!;
  for (let il = loopLine.ilOffset; il < next.ilOffset; il++) assert.equal(pdb.locate(heavy.token, il)?.line, shiftLine);
  assert.equal(pdb.locate(heavy.token, 0)?.line, visible[0].startLine);
  assert.match(pdb.locate(heavy.token, loopLine.ilOffset)!.file, /CpuRatio\.cs$/);
  assert.equal(pdb.locate(0x06ffffff, 0), null, 'a method the PDB has no row for');
});

test('a PDB embedded in its assembly reads the same way once inflated', { skip }, () => {
  const pe = new PeFile(readFileSync(out('CpuBench', 'CpuBench.dll')));
  const embedded = pe.embeddedPdb();
  assert.ok(embedded !== null, 'CpuBench embeds its PDB');
  const bytes = inflateRawSync(embedded.compressed);
  assert.equal(bytes.length, embedded.size);
  const pdb = new PortablePdb(bytes);
  assert.deepEqual(Array.from(pe.codeView()!.guid), Array.from(pdb.guid));
  const mix = methodDefinitions(pe.metadata).find((m) => m.name === 'Clrscope.Targets.CpuBench.Work.IntegerMix');
  assert.ok(mix !== undefined);
  const line = lineOf(join(ROOT, 'test', 'targets', 'CpuBench', 'Work.cs'), 'x *= 0x7FB5D329728EA185UL;');
  assert.ok(pdb.sequencePoints(mix.token).some((p) => p.startLine === line), `a sequence point on line ${line}`);
  assert.equal(pdb.entryPointToken, methodDefinitions(pe.metadata).find((m) => m.name === 'Clrscope.Targets.CpuBench.Bench.Main')!.token);
});

test('nested and generic types are named as the profiler names them; bad files are one sentence', { skip }, () => {
  const names = methodDefinitions(new PeFile(readFileSync(out('Scenarios', 'Scenarios.dll'))).metadata).map((m) => m.name);
  assert.ok(names.some((n) => /^Clrscope\.Targets\.Scenarios\.AsyncWork\+<RunAsync>d__\d+\.MoveNext$/.test(n)), 'a state machine nested in AsyncWork');
  assert.throws(() => new PeFile(Uint8Array.from([1, 2, 3, 4])), /not a PE file/);
  assert.throws(() => new PortablePdb(readFileSync(out('Scenarios', 'Scenarios.dll'))), PdbFormatError);
  const truncated = readFileSync(out('Scenarios', 'Scenarios.pdb')).subarray(0, 200);
  assert.throws(() => new PortablePdb(truncated), PdbFormatError);
});
