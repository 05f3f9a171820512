// The no-links check (scripts/lint/no-links.mjs) on small repositories made here: a tracked
// symbolic link (as `git add -A` takes a link to an installed tool, which a "dir/" ignore pattern
// does not match) fails it with the link's path; plain files and untracked links do not.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../integration/support/paths.js';

const SCRIPT = join(ROOT, 'scripts', 'lint', 'no-links.mjs');
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

function git(dir: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

/** A repository with a file and a link to a folder beside it; `track` adds the link too. */
function repository(track: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'no-links-'));
  made.push(dir);
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'a.ts'), 'export {};\n');
  symlinkSync(join(dir, 'tools'), join(dir, '.installed'));
  git(dir, 'init', '-q');
  git(dir, 'add', 'a.ts', ...(track ? ['.installed'] : []));
  return dir;
}

describe('lint: no symbolic link is tracked', () => {
  it('fails a repository tracking a link, naming it', () => {
    const r = spawnSync(process.execPath, [SCRIPT, repository(true)], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^\.installed: a symbolic link is tracked/m);
  });

  it('passes one whose link is not tracked', () => {
    const r = spawnSync(process.execPath, [SCRIPT, repository(false)], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout);
    assert.equal(r.stdout, '');
  });
});
