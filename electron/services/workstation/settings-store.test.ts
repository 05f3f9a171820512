import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';
import { UserError } from '../errors/user-error.js';
import { defaultSettingsDir, SettingsStore } from './settings-store.js';

const root = mkdtempSync(join(tmpdir(), 'clrscope-settings-test-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const mine = { fold: { runtime: false, myCode: true, groupBy: 'assembly' as const, patterns: [{ action: 'group' as const, glob: 'Microsoft.AspNetCore.*' }] } };

test('saved settings load back; the folder is owner-only, the file 0600, no partial file is left', () => {
  const store = new SettingsStore(join(root, 'a', 'clrscope'));
  assert.deepEqual(store.load(), { fold: DEFAULT_FOLD }, 'no file yet: the defaults');
  store.save(mine);
  assert.deepEqual(store.load(), mine);
  assert.equal(statSync(store.dir).mode & 0o777, 0o700);
  assert.equal(statSync(store.path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(store.dir), ['settings.json']);
  store.save({ fold: DEFAULT_FOLD });
  assert.deepEqual(store.load(), { fold: DEFAULT_FOLD });
});

test('a corrupt or foreign file means the defaults; a link is not followed', () => {
  const store = new SettingsStore(join(root, 'b'));
  store.save(mine);
  writeFileSync(store.path, '{"fold": {"runtime": "maybe"}}');
  assert.deepEqual(store.load(), { fold: DEFAULT_FOLD });
  writeFileSync(store.path, 'not json');
  assert.deepEqual(store.load(), { fold: DEFAULT_FOLD });
  const elsewhere = join(root, 'elsewhere.json');
  writeFileSync(elsewhere, JSON.stringify(mine));
  rmSync(store.path);
  symlinkSync(elsewhere, store.path);
  assert.deepEqual(store.load(), { fold: DEFAULT_FOLD }, 'O_NOFOLLOW: the link is not read');
  store.save(mine);
  assert.equal(readFileSync(elsewhere, 'utf8'), JSON.stringify(mine), 'saving replaced the link, not the file it pointed at');
});

test('a folder others can write to is refused in one sentence', () => {
  const dir = join(root, 'open');
  const store = new SettingsStore(dir);
  store.save(mine);
  chmodSync(dir, 0o777);
  assert.throws(() => store.save(mine), (err: Error) => err instanceof UserError && /can be read or written by other users; make it yours alone \(chmod 700\)/.test(err.message));
});

test('the folder: CLRSCOPE_CONFIG_DIR, else XDG_CONFIG_HOME/clrscope, else ~/.config/clrscope', () => {
  assert.equal(defaultSettingsDir({ CLRSCOPE_CONFIG_DIR: '/x/y', XDG_CONFIG_HOME: '/c' }), '/x/y');
  assert.equal(defaultSettingsDir({ XDG_CONFIG_HOME: '/c' }), '/c/clrscope');
  assert.match(defaultSettingsDir({}), /\/\.config\/clrscope$/);
});
