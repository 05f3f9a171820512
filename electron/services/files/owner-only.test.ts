import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, closeSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExclusive, createExclusiveSync } from './exclusive-file.js';
import { moveIntoPlace } from './move-into-place.js';
import { writeFileAtomically } from '../export/atomic-file.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-owner-only-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

/** Runs `body` under `mask`, then puts the umask back. */
async function underUmask<T>(mask: number, body: () => Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await body();
  } finally {
    process.umask(before);
  }
}

test('a written output is 0600 under the usual umask (it was 0644: the writer asked for 0666)', async () => {
  const out = join(dir, 'usual.pb.gz');
  await underUmask(0o022, () => writeFileAtomically(out, ['data']));
  assert.equal(modeOf(out), '600');
});

test('a file created under a umask that takes the owner\'s bits is still 0600, and no umask opens it to others', async () => {
  const narrow = join(dir, 'narrow.json');
  await underUmask(0o277, () => writeFileAtomically(narrow, ['{}']));
  assert.equal(modeOf(narrow), '600');
  const wide = join(dir, 'wide.bin');
  await underUmask(0o000, async () => (await createExclusive(wide)).close());
  assert.equal(modeOf(wide), '600');
  const sync = join(dir, 'sync.bin');
  await underUmask(0o222, async () => closeSync(createExclusiveSync(sync)));
  assert.equal(modeOf(sync), '600');
});

test('a file made by another program (the .etlx converter) is owner-only once moved into place', async () => {
  const from = join(dir, 'made-elsewhere.etlx');
  writeFileSync(from, 'etlx');
  chmodSync(from, 0o644);
  const to = join(dir, 'moved.etlx');
  await moveIntoPlace(from, to);
  assert.equal(modeOf(to), '600');
  assert.equal(readFileSync(to, 'utf8'), 'etlx');
  assert.equal(existsSync(from), false);
});

/** A folder on another file system than the temp folder, where a rename from it fails with EXDEV. */
function otherFileSystem(): string | undefined {
  for (const candidate of ['/dev/shm', '/run/user', '/run']) {
    try {
      if (statSync(candidate).dev !== statSync(dir).dev) return mkdtempSync(join(candidate, 'clrscope-owner-only-test-'));
    } catch {
      // Not there, or not writable: try the next.
    }
  }
  return undefined;
}

test('a move to another file system (a copy, since rename cannot cross) leaves an owner-only file and no source', async (t) => {
  const other = otherFileSystem();
  if (other === undefined) {
    t.skip(`no writable folder on another file system than ${dir} (tried /dev/shm, /run/user, /run)`);
    return;
  }
  try {
    const from = join(dir, 'spooled.clrscope');
    writeFileSync(from, Buffer.alloc(3 << 20, 7));
    chmodSync(from, 0o600);
    const to = join(other, 'out.clrscope');
    await underUmask(0o022, () => moveIntoPlace(from, to));
    assert.equal(modeOf(to), '600');
    assert.equal(statSync(to).size, 3 << 20);
    assert.equal(existsSync(from), false);
    assert.deepEqual(readdirSync(other), ['out.clrscope']);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
