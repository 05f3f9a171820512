import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSourceFile } from './source-file.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-source-file-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function message(r: ReturnType<typeof readSourceFile>): string {
  assert.ok('message' in r, `refused: ${JSON.stringify(r).slice(0, 100)}`);
  return r.message;
}

test('reads a UTF-8 source file (its BOM dropped)', () => {
  const path = join(dir, 'Program.cs');
  writeFileSync(path, '\ufeffclass P { // é ✓\n}\n');
  assert.deepEqual(readSourceFile(path), { text: 'class P { // é ✓\n}\n' });
  writeFileSync(join(dir, 'Empty.cs'), '');
  assert.deepEqual(readSourceFile(join(dir, 'Empty.cs')), { text: '' });
});

test('a file not on this machine, or named as on another one, is one sentence', () => {
  assert.match(message(readSourceFile(join(dir, 'Missing.cs'))), /Missing\.cs is not on this machine, so only its lines' figures are shown\.$/);
  assert.match(message(readSourceFile(join(dir, 'Program.cs', 'x.cs'))), /is not on this machine/);
  assert.match(message(readSourceFile('C:\\src\\App\\Program.cs')), /^C:\\src\\App\\Program\.cs is not a path on this machine/);
  assert.match(message(readSourceFile('/_/src/Program.cs')), /is not a path on this machine/);
});

test('a symbolic link is refused, even to a readable source file', () => {
  const target = join(dir, 'Real.cs');
  writeFileSync(target, 'class R {}\n');
  const link = join(dir, 'Link.cs');
  symlinkSync(target, link);
  assert.match(message(readSourceFile(link)), /Link\.cs is a symbolic link; clrscope shows only the file the PDB names/);
  // A link to a secret outside the tree reads nothing of it either.
  const outside = join(dir, 'shadow.cs');
  symlinkSync('/etc/passwd', outside);
  assert.doesNotMatch(message(readSourceFile(outside)), /root/);
});

test('folders, FIFOs and other non-regular files are refused without waiting', () => {
  mkdirSync(join(dir, 'Folder.cs'));
  assert.match(message(readSourceFile(join(dir, 'Folder.cs'))), /is not a regular file/);
  const fifo = join(dir, 'Pipe.cs');
  execFileSync('mkfifo', [fifo]);
  assert.match(message(readSourceFile(fifo)), /Pipe\.cs is not a regular file/);
  assert.match(message(readSourceFile('/dev/zero')), /not a regular file/);
});

test('a file over the size limit is refused by its size', () => {
  const big = join(dir, 'Big.cs');
  writeFileSync(big, 'x'.repeat(1025));
  assert.match(message(readSourceFile(big, 1024)), /Big\.cs is 0\.0 MiB; the source panel shows files up to 0\.0 MiB\./);
  assert.deepEqual(readSourceFile(big, 1025), { text: 'x'.repeat(1025) });
  const huge = join(dir, 'Huge.cs');
  writeFileSync(huge, Buffer.alloc(3 * 1024 * 1024, 0x20));
  assert.match(message(readSourceFile(huge)), /Huge\.cs is 3\.0 MiB; the source panel shows files up to 2\.0 MiB\./);
});

test('text that is not UTF-8, or binary data, is refused', () => {
  const latin1 = join(dir, 'Latin1.cs');
  writeFileSync(latin1, Buffer.from([0x2f, 0x2f, 0x20, 0xe9, 0x0a]));
  assert.match(message(readSourceFile(latin1)), /Latin1\.cs is not UTF-8 text, so it is not shown\./);
  const bin = join(dir, 'App.dll');
  writeFileSync(bin, Buffer.from([0x4d, 0x5a, 0x00, 0x00]));
  assert.match(message(readSourceFile(bin)), /holds binary data/);
});

test('an unreadable file says why', { skip: process.getuid?.() === 0 ? 'root reads every file' : false }, () => {
  const locked = join(dir, 'Locked.cs');
  writeFileSync(locked, 'class L {}\n');
  chmodSync(locked, 0o000);
  assert.match(message(readSourceFile(locked)), /Locked\.cs cannot be read \(permission denied\)/);
});

test('a file whose checksum is not the PDB\'s is shown with a sentence saying it changed', () => {
  const path = join(dir, 'Hashed.cs');
  writeFileSync(path, 'class H {}\n');
  const sha256 = createHash('sha256').update('class H {}\n').digest();
  assert.deepEqual(readSourceFile(path, undefined, { algorithm: 'sha256', hash: sha256 }), { text: 'class H {}\n' });
  const sha1 = createHash('sha1').update('class H {}\n').digest();
  assert.deepEqual(readSourceFile(path, undefined, { algorithm: 'sha1', hash: sha1 }), { text: 'class H {}\n' });
  writeFileSync(path, 'class H { int x; }\n');
  const r = readSourceFile(path, undefined, { algorithm: 'sha256', hash: sha256 });
  assert.ok('text' in r && r.text === 'class H { int x; }\n');
  assert.match('warning' in r ? r.warning ?? '' : '', /Hashed\.cs changed since the recorded build was compiled from it, so its lines may not match the figures\.$/);
});
