import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smallRecording } from '../../../structs/formats/nettrace/fixture-recordings.test-support.js';
import { UserError } from '../errors/user-error.js';
import { etlxConverterPath, toEtlx } from './etlx.js';

const work = mkdtempSync(join(tmpdir(), 'clrscope-etlx-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

// The converter is built by scripts/build-targets.sh; CI must have it, elsewhere its absence skips visibly.
function requireConverter(t: TestContext): boolean {
  if (existsSync(etlxConverterPath())) return true;
  if (process.env.CI) assert.fail(`${etlxConverterPath()} is missing but CI is set: scripts/build-targets.sh builds it.`);
  t.skip('the .etlx converter is not built (bash scripts/build-targets.sh)');
  return false;
}

test('a missing converter is one sentence naming it and how to build it', async () => {
  const missing = join(work, 'nowhere', 'EtlxConverter.dll');
  await assert.rejects(toEtlx(smallRecording(), join(work, 'a.etlx'), { converter: missing }), (err: unknown) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, /^Cannot write .*a\.etlx: the \.etlx converter .*EtlxConverter\.dll is not built; run scripts\/setup\.sh/);
    return true;
  });
});

test('a missing dotnet host is one sentence', async (t) => {
  if (!requireConverter(t)) return;
  await assert.rejects(toEtlx(smallRecording(), join(work, 'b.etlx'), { dotnet: 'dotnet-that-does-not-exist' }), /needs the \.NET runtime, and `dotnet-that-does-not-exist` is not on PATH/);
});

test('the recording becomes an .etlx that TraceLog reopened, and the temporary folder is gone', async (t) => {
  if (!requireConverter(t)) return;
  const tempRoot = mkdtempSync(join(work, 'temp-'));
  const out = join(work, 'small.etlx');
  const result = await toEtlx(smallRecording(), out, { tempRoot });
  assert.equal(result.samples, 2);
  assert.equal(result.threads, 1);
  assert.equal(result.eventsLost, 0);
  assert.equal(result.bytes, statSync(out).size);
  assert.deepEqual(readdirSync(tempRoot), []);
  assert.deepEqual(readdirSync(work).filter((f) => f.includes('partial')), []);
});

test('an output folder that does not exist is one sentence', async (t) => {
  if (!requireConverter(t)) return;
  const out = join(work, 'missing-folder', 'x.etlx');
  await assert.rejects(toEtlx(smallRecording(), out), /^UserError: Cannot write .*x\.etlx: the folder .*missing-folder does not exist\.$/);
  assert.equal(existsSync(out), false);
});

test('a conversion TraceEvent refuses is one sentence without the temporary file\'s name', async (t) => {
  if (!requireConverter(t)) return;
  const out = join(work, 'refused.etlx');
  // The real converter and TraceEvent, given a damaged .nettrace: a wrapper for `dotnet` cuts
  // the temporary file short before the converter reads it.
  const wrapper = join(work, 'cut-dotnet.sh');
  writeFileSync(wrapper, '#!/bin/sh\ntruncate -s 100 "$2"\nexec dotnet "$@"\n', { mode: 0o755 });
  await assert.rejects(toEtlx(smallRecording(), out, { dotnet: wrapper }), (err: unknown) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, /^Cannot write .*refused\.etlx: TraceEvent could not convert the recording: /);
    assert.ok(!err.message.includes('\n') && !err.message.includes('recording.nettrace'), err.message);
    return true;
  });
  assert.equal(existsSync(out), false);
});

test('a folder where the .etlx should go is one sentence, and nothing is written through it', async (t) => {
  if (!requireConverter(t)) return;
  const out = join(work, 'occupied.etlx');
  mkdirSync(out);
  await assert.rejects(toEtlx(smallRecording(), out), /^UserError: Cannot write .*occupied\.etlx: it is a folder\.$/);
});
