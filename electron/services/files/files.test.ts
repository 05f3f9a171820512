import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExclusive } from './exclusive-file.js';
import { ensurePrivateDir, NotPrivateError } from './private-dir.js';
import { writeFileAtomically } from '../export/atomic-file.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-files-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

test('an exclusive create refuses an existing file and a planted link, and writes nothing through it', async () => {
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious');
  const link = join(dir, 'link.txt');
  symlinkSync(victim, link);
  await assert.rejects(createExclusive(link), { code: 'EEXIST' });
  await assert.rejects(createExclusive(victim), { code: 'EEXIST' });
  assert.equal(readFileSync(victim, 'utf8'), 'precious');
  const fresh = await createExclusive(join(dir, 'fresh.bin'));
  await fresh.close();
  assert.equal(statSync(join(dir, 'fresh.bin')).mode & 0o777, 0o600);
});

test('a private folder is created 0700; a loose one of ours is tightened; a link or a file is refused', async () => {
  const made = await ensurePrivateDir(join(dir, 'a', 'b'));
  assert.equal(statSync(made).mode & 0o777, 0o700);
  const loose = join(dir, 'loose');
  mkdirSync(loose, { mode: 0o777 });
  chmodSync(loose, 0o777);
  await ensurePrivateDir(loose);
  assert.equal(statSync(loose).mode & 0o777, 0o700);
  const link = join(dir, 'dirlink');
  symlinkSync(made, link);
  await assert.rejects(ensurePrivateDir(link), (err: unknown) => err instanceof NotPrivateError && /is a symbolic link/.test(err.message));
  writeFileSync(join(dir, 'plain'), '');
  await assert.rejects(ensurePrivateDir(join(dir, 'plain')));
});

test('the atomic writer leaves the file whole or not at all, under a name nobody could predict', async () => {
  const target = join(dir, 'out.json');
  async function* pieces(): AsyncGenerator<string> {
    yield '[1,';
    yield '2]';
  }
  assert.equal(await writeFileAtomically(target, pieces()), 5);
  assert.equal(readFileSync(target, 'utf8'), '[1,2]');
  // A failing producer leaves neither the target changed nor a temporary file.
  async function* failing(): AsyncGenerator<string> {
    yield 'x';
    throw new Error('producer broke');
  }
  await assert.rejects(writeFileAtomically(target, failing()), /producer broke/);
  assert.equal(readFileSync(target, 'utf8'), '[1,2]');
  assert.deepEqual(readdirSync(dir).filter((n) => n.includes('partial')), []);
});

test('under a file size limit (ulimit -f) the short write is caught: one sentence, no file, no partial', (t) => {
  // A child node with RLIMIT_FSIZE of 100 KiB writes 300 KB: the first write(2) returns a short
  // count (Node ignores SIGXFSZ), the next fails with EFBIG.
  const target = join(dir, 'limited.bin');
  const script = `
    import { writeFileAtomically } from ${JSON.stringify(new URL('../export/atomic-file.js', import.meta.url).href)};
    try {
      await writeFileAtomically(${JSON.stringify(target)}, [new Uint8Array(300000)]);
      console.log('wrote');
    } catch (err) {
      console.log(err.name + ': ' + err.message + ' exit ' + err.exitCode);
    }`;
  const r = spawnSync('sh', ['-c', `ulimit -f 100 && exec "${process.execPath}" --input-type=module -e '${script.replace(/'/g, "'\\''")}'`], { encoding: 'utf8' });
  if (r.status !== 0 && /ulimit/.test(r.stderr)) {
    t.skip(`cannot set a file size limit here: ${r.stderr.trim()}`);
    return;
  }
  assert.equal(r.stdout.trim(), `UserError: Cannot write ${target}: the file would be larger than this process may write (ulimit -f) or the file system allows. exit 74`);
  assert.equal(existsSync(target), false);
  assert.deepEqual(readdirSync(dir).filter((n) => n.includes('limited')), []);
});
