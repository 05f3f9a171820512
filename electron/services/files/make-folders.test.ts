import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFolders } from './make-folders.js';
import { ensurePrivateDir, privateDirProblem } from './private-dir.js';
import { folderErrorText } from '../errors/fs-error-text.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-make-folders-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** The sentence end ensurePrivateDir's failure gets, or 'made' when it succeeded. */
async function problemOf(path: string): Promise<string> {
  try {
    await ensurePrivateDir(path);
    return 'made';
  } catch (err) {
    return privateDirProblem(err, path);
  }
}

test('missing folders are made 0700, each of them; an existing path is left alone', async () => {
  const deep = join(dir, 'a', 'b', 'c');
  await makeFolders(deep, 0o700);
  for (const folder of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) assert.equal(statSync(folder).mode & 0o777, 0o700);
  await makeFolders(deep, 0o700);
  writeFileSync(join(dir, 'plain-file'), '');
  await makeFolders(join(dir, 'plain-file'), 0o700);
});

test('a file where a folder should be is named, not reported as missing', async () => {
  const file = join(dir, 'cache-is-a-file');
  writeFileSync(file, '');
  assert.equal(await problemOf(join(file, 'clrscope', 'spool')), `${file} is not a folder`);
  assert.equal(await problemOf(file), `${file} is not a folder`);
  const link = join(dir, 'link-to-folder');
  symlinkSync(join(dir, 'a'), link);
  assert.equal(await problemOf(link), `${link} is a symbolic link, not a folder`);
  // A link higher up is followed: ~/.cache is often one.
  assert.equal(await problemOf(join(link, 'clrscope')), 'made');
});

test('errors name the folder at fault: a creation in its parent, anything else on the path itself', () => {
  const at = (code: string, syscall: string, path: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code, syscall, path });
  assert.equal(folderErrorText(at('EROFS', 'mkdir', '/ro/clrscope'), '/ro/clrscope/spool'), '/ro is on a read-only file system');
  assert.equal(folderErrorText(at('EROFS', 'open', '/ro/spool/record.clrscope'), '/ro/spool'), '/ro/spool is on a read-only file system');
  assert.equal(folderErrorText(at('EROFS', 'chmod', '/ro/clrscope'), '/ro/clrscope/spool'), '/ro/clrscope is on a read-only file system');
  assert.equal(folderErrorText(at('EACCES', 'mkdir', '/locked/clrscope'), '/locked/clrscope/spool'), 'permission denied to create anything in /locked');
  assert.equal(folderErrorText(at('EACCES', 'stat', '/locked/clrscope'), '/locked/clrscope/spool'), 'permission denied for /locked/clrscope');
  assert.equal(folderErrorText(at('ENOSPC', 'mkdir', '/full/clrscope'), '/full/clrscope'), '/full: the disk is full');
});

test('a cache folder this user may not write to says permission denied (run as nobody)', (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('running as another user needs root');
    return;
  }
  const locked = join(dir, 'locked');
  mkdirSync(locked);
  chmodSync(dir, 0o755);
  chmodSync(locked, 0o755);
  const script = `
    import { ensureSpoolDir, spoolDir } from ${JSON.stringify(new URL('../spool/spool-dir.js', import.meta.url).href)};
    import { privateDirProblem } from ${JSON.stringify(new URL('./private-dir.js', import.meta.url).href)};
    try { await ensureSpoolDir(); console.log('made'); } catch (err) { console.log(privateDirProblem(err, spoolDir())); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { uid: 65534, gid: 65534, env: { XDG_CACHE_HOME: locked }, encoding: 'utf8' });
  if (r.status !== 0) {
    t.skip(`the nobody user cannot run this test's node (${r.stderr.trim().split('\n')[0]})`);
    return;
  }
  assert.equal(r.stdout.trim(), `permission denied to create anything in ${locked}`);
});
