import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../services/errors/user-error.js';
import { runHeap } from './heap-command.js';

// The real dotnet-gcdump file the reader's tests use (test/targets/LeakHeap, 1,000 items).
const fixture = new URL('../../../structs/formats/gcdump/fixtures/leakheap-1000.gcdump', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'clrscope-heap-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<string[]> {
  const lines: string[] = [];
  assert.equal(await runHeap(args, { out: (l) => lines.push(l), err: (l) => lines.push(l) }), 0);
  return lines;
}

async function refused(args: string[], message: RegExp): Promise<void> {
  await assert.rejects(() => runHeap(args, { out: () => undefined, err: () => undefined }), (err: unknown) => {
    assert.ok(err instanceof UserError, String(err));
    assert.match(err.message, message);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
}

test('the types table: count, bytes and retained bytes, most retained first, the rest counted', async () => {
  const lines = (await run(fixture, '--top', '3'));
  assert.match(lines[0], /^\s+count\s+bytes\s+retained bytes\s+type$/);
  assert.match(lines[1], /^\s+1\s+32\s+164,248\s+System\.Collections\.Generic\.List<Clrscope\.Targets\.LeakHeap\.LeakedItem>$/);
  assert.match(lines[3], /^\s+1,000\s+32,000\s+156,000\s+Clrscope\.Targets\.LeakHeap\.LeakedItem$/);
  assert.match(lines[4], /^\(\d+ more types; --top 0 shows all\)$/);
  const json = JSON.parse((await run(fixture, '--format', 'json', '--top', '0'))[0]) as { types: { type: string; count: number }[] };
  assert.deepEqual(Object.keys(json.types[0]), ['type', 'count', 'bytes', 'retainedBytes']);
});

test('a part of a type name finds it when it names one type; a snapshot diffed with itself changed nothing', async () => {
  assert.match((await run(fixture, '--paths', 'HandleHeldItem')).join('\n'), /\[strong Handles\] → Clrscope\.Targets\.LeakHeap\.HandleHeldItem/);
  assert.deepEqual((await run(fixture, '--diff', fixture)).slice(1), ['No type changed.']);
  assert.deepEqual((await run(fixture, '--diff', fixture, '--paths', 'LeakedItem')), ['No path to Clrscope.Targets.LeakHeap.LeakedItem changed.']);
});

test('bad input is one sentence', async () => {
  await refused([], /needs a snapshot file/);
  await refused([fixture, '--paths', 'Item'], /^Item names \d+ types \(.*\): give the full name\.$/);
  await refused([fixture, '--paths', 'NoSuchThing'], /^No type in the snapshot is named NoSuchThing\.$/);
  await refused([fixture, '--format', 'csv'], /--format must be text or json/);
  await refused([join(dir, 'missing.gcdump')], /^Cannot read .*missing\.gcdump: no such file\.$/);
  const text = join(dir, 'notes.txt');
  writeFileSync(text, 'not a heap');
  await refused([text], /is not a heap snapshot clrscope reads \(\.clrheap, \.gcdump, \.clrscope\)\.$/);
  const cut = join(dir, 'cut.gcdump');
  writeFileSync(cut, readFileSync(fixture).subarray(0, 5000));
  await refused([cut], /^Cannot read .*cut\.gcdump as gcdump \(dotnet-gcdump, PerfView\): .*truncated.*\.$/);
  await refused([fixture, '-o', join(dir, 'snap.txt')], /^-o saves the snapshot as \.clrheap or \.gcdump, which .*snap\.txt does not end in\.$/);
  await refused([fixture, '-o', join(dir, 'no-such-folder', 'x.gcdump')], /^Cannot write .*x\.gcdump: .*\.$/);
});

test('a snapshot read is saved as either format (-o), and each reads back as the same types, paths and owner-only', async () => {
  const table = async (file: string): Promise<string> => (await run(file, '--top', '0', '--format', 'json'))[0];
  const original = await table(fixture);
  for (const name of ['again.gcdump', 'again.clrheap']) {
    const out = join(dir, name);
    const lines = await run(fixture, '-o', out, '--top', '1');
    assert.ok(lines.includes(`Saved the snapshot to ${out}.`), lines.join('\n'));
    assert.equal(await table(out), original, name);
    assert.deepEqual(await run(out, '--paths', 'HandleHeldItem'), await run(fixture, '--paths', 'HandleHeldItem'));
    assert.equal(statSync(out).mode & 0o777, 0o600);
  }
});
