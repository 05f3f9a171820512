// pprof of a recording with async call stacks: the logical stacks, read back by go tool pprof.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { asyncFixtureStream, asyncSuspendedFixtureStream } from '../../profile/async-fixture-stream.test-support.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { goPprof, requireGo } from './go-pprof.test-support.js';
import { ASYNC_STACKS_COMMENT } from './to-pprof.js';
import { gzippedPprof } from './pprof.test-support.js';

const rec = recordingFromStream([asyncFixtureStream()]);
const work = mkdtempSync(join(tmpdir(), 'clrscope-pprof-async-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

function traces(bytes: Uint8Array, name: string, index = 'cpu'): string[] {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return goPprof(work, ['-traces', `-sample_index=${index}`], path).split(/^-+\+-+$/m).slice(1).map((b) => b.trim()).filter((b) => b !== '')
    .map((b) => b.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).join(' | '));
}

test('go tool pprof -traces: the awaiting methods sit above the running MoveNext, labelled, the rest physical', (t) => {
  if (!requireGo(t)) return;
  assert.deepEqual(traces(gzippedPprof(rec), 'async.pb.gz'), [
    'async stack: logical | thread name: pool | thread id: 11 | 100ns Demo.Db.Hot | Demo.Db+<Inner>d__2.MoveNext | [await] Demo.Db.Middle | [await] Demo.Api.Outer',
    'thread name: pool | thread id: 11 | 1us Demo.Db.Hot | Demo.Db+<Inner>d__2.MoveNext | System.Threading.ThreadPoolWorkQueue.Dispatch',
    'thread name: pool | thread id: 11 | 400ns Demo.Other.Spin | System.Threading.ThreadPoolWorkQueue.Dispatch',
  ]);
  // Physical stacks on request: the same samples, no [await] frames.
  assert.deepEqual(traces(gzippedPprof(rec, undefined, { asyncStacks: false }), 'physical.pb.gz'), [
    'thread name: pool | thread id: 11 | 1.10us Demo.Db.Hot | Demo.Db+<Inner>d__2.MoveNext | System.Threading.ThreadPoolWorkQueue.Dispatch',
    'thread name: pool | thread id: 11 | 400ns Demo.Other.Spin | System.Threading.ThreadPoolWorkQueue.Dispatch',
  ]);
});

test("go tool pprof -traces: a suspended operation's wall time sits under its chain above [suspended]; its CPU is none", (t) => {
  if (!requireGo(t)) return;
  const suspended = recordingFromStream([asyncSuspendedFixtureStream()]);
  const pb = gzippedPprof(suspended);
  assert.deepEqual(traces(pb, 'suspended-wall.pb.gz', 'wall').filter((b) => b.includes('[suspended]')), [
    'async stack: logical | thread name: [async operations] | 50ms [awaiting Task.Delay] | [suspended] | [await] Demo.Db.Inner | [await] Demo.Db.Middle | [await] Demo.Api.Outer',
    'async stack: logical | thread name: [async operations] | 7ms [suspended] | [await] Demo.Api.Outer',
  ]);
  // CPU: the same traces as without them, and none in theirs.
  const cpu = traces(pb, 'suspended-cpu.pb.gz');
  assert.deepEqual(cpu.filter((b) => !b.includes('[suspended]')), traces(gzippedPprof(rec), 'plain-cpu.pb.gz'));
  assert.ok(cpu.filter((b) => b.includes('[suspended]')).every((b) => b.includes('| 0 [')));
});

test('the comment says how async stacks are carried; a recording without them has no such comment', () => {
  const s = (p: Profile): string[] => p.comment.map((i) => p.stringTable.strings[Number(i)]);
  assert.ok(s(Profile.decode(gunzipSync(gzippedPprof(rec)))).includes(ASYNC_STACKS_COMMENT));
  assert.ok(!s(Profile.decode(gunzipSync(gzippedPprof(recordingFromStream([fixtureStream()]))))).includes(ASYNC_STACKS_COMMENT));
});
