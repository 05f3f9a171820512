import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ownedTempDir, ownerGone, removeStaleTempDirs, startTimeOf } from './owned-temp-dir.js';

const root = mkdtempSync(join(tmpdir(), 'clrscope-owned-test-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const hasProc = existsSync('/proc/self/stat');

/** A pid that ended: a child that exited and was reaped. */
function endedPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

test('the start time is /proc/PID/stat field 22, read past a command name holding spaces and parentheses', (t) => {
  if (!hasProc) {
    t.skip('no /proc here');
    return;
  }
  const own = startTimeOf(process.pid);
  assert.ok(typeof own === 'object' && /^\d+$/.test(own.start));
  const fields = readFileSync('/proc/self/stat', 'latin1').split(' ');
  // Node's own command name has no spaces: field 22 is the 22nd word.
  assert.equal(own.start, fields[21]);
  assert.equal(startTimeOf(endedPid()), 'gone');
  // A program named "x) 1 2 (y": its command name field holds spaces and parentheses.
  const odd = join(root, 'x) 1 2 (y');
  writeFileSync(odd, readFileSync('/bin/sleep'), { mode: 0o700 });
  const child = spawn(odd, ['30']);
  t.after(() => child.kill());
  const bySed = spawnSync('sh', ['-c', `sed 's/.*) //' /proc/${child.pid}/stat | cut -d' ' -f20`], { encoding: 'utf8' }).stdout.trim();
  assert.match(bySed, /^\d+$/);
  assert.deepEqual(startTimeOf(child.pid ?? 0), { start: bySed });
});

test('an owner is gone when its pid ended or now names a process started at another time', (t) => {
  if (!hasProc) {
    t.skip('no /proc here');
    return;
  }
  const own = startTimeOf(process.pid);
  assert.ok(typeof own === 'object');
  assert.equal(ownerGone(process.pid, own.start), false);
  assert.equal(ownerGone(process.pid, String(Number(own.start) + 1)), true, 'the pid was reused');
  assert.equal(ownerGone(endedPid(), own.start), true);
  // A folder named without a start time (made without /proc): the pid alone decides.
  assert.equal(ownerGone(process.pid, '0'), false);
});

test('stale folders of ended clrscopes are removed; live ones, others\' and anything else are kept', async (t) => {
  if (!hasProc) {
    t.skip('no /proc here');
    return;
  }
  const sleeper = spawn('sleep', ['30']);
  t.after(() => sleeper.kill());
  const sleeperStart = startTimeOf(sleeper.pid ?? 0);
  assert.ok(typeof sleeperStart === 'object');
  const dead = endedPid();
  const make = (name: string): string => {
    const path = join(root, name);
    mkdirSync(path);
    writeFileSync(join(path, 'sock'), '');
    return path;
  };
  // Made first: making a folder sweeps the others.
  const ours = await ownedTempDir(undefined, root);
  const stale = make(`clrscope-${dead}-${sleeperStart.start}-aB3dE9`);
  const staleEtlx = make(`clrscope-etlx-${dead}-123-zzzzzz`);
  const reused = make(`clrscope-${sleeper.pid}-${Number(sleeperStart.start) + 7}-Q1w2E3`);
  const live = make(`clrscope-${sleeper.pid}-${sleeperStart.start}-r4T5y6`);
  const otherName = make('clrscope-abcdef');
  const unrelated = make(`clrscope-exports-${dead}`);
  const fileNamed = join(root, `clrscope-${dead}-1-fIlE00`);
  writeFileSync(fileNamed, '');
  const linkNamed = join(root, `clrscope-${dead}-1-lInK00`);
  symlinkSync(live, linkNamed);
  let othersUser: string | undefined;
  if (process.getuid?.() === 0) {
    othersUser = make(`clrscope-${dead}-1-nObOdY`);
    chownSync(othersUser, 65534, 65534);
  }
  assert.match(basename(ours), new RegExp(`^clrscope-${process.pid}-\\d+-[A-Za-z0-9]{6}$`));
  assert.equal(statSync(ours).mode & 0o777, 0o700);

  const removed = await removeStaleTempDirs(root);
  assert.deepEqual(removed.sort(), [stale, staleEtlx, reused].sort());
  for (const kept of [live, ours, otherName, unrelated, fileNamed, linkNamed, ...(othersUser === undefined ? [] : [othersUser])]) assert.ok(existsSync(kept), kept);
  // Making a folder sweeps too.
  const again = make(`clrscope-${dead}-5-aGaIn0`);
  const next = await ownedTempDir('etlx', root);
  assert.match(basename(next), new RegExp(`^clrscope-etlx-${process.pid}-\\d+-`));
  assert.equal(existsSync(again), false);
  // In a container's /tmp the pids in other clrscopes' names are that container's: only folders of the same kind are swept.
  const inside = make(`clrscope-${dead}-5-iNsIdE`);
  const fromHost = make(`clrscope-fromhost-${dead}-5-fRoMhO`);
  const placed = await ownedTempDir('fromhost', root, 'kind');
  assert.match(basename(placed), new RegExp(`^clrscope-fromhost-${process.pid}-\\d+-`));
  assert.equal(existsSync(fromHost), false);
  assert.equal(existsSync(inside), true, 'a folder of a clrscope inside the container is left alone');
});
