import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { MAX_SAMPLES } from '../../profile/read-budget.js';
import { fromSpeedscope } from './from-speedscope.js';
import { SPEEDSCOPE_SCHEMA_URL } from './speedscope-file.js';

const encoder = new TextEncoder();

function nestedOpens(n: number): Uint8Array {
  const events: string[] = [];
  for (let i = 0; i < n; i++) events.push(`{"type":"O","frame":${i % 50},"at":${i * 1000}}`);
  const frames = Array.from({ length: 50 }, (_, i) => `{"name":"f${i}"}`).join(',');
  return encoder.encode(`{"$schema":"${SPEEDSCOPE_SCHEMA_URL}","shared":{"frames":[${frames}]},"profiles":[{"type":"evented","name":"nested","unit":"none","startValue":0,"endValue":${n * 1000},"events":[${events.join(',')}]}]}`);
}

function refused(bytes: Uint8Array, message: RegExp): void {
  assert.throws(() => fromSpeedscope(bytes), (err: Error) => {
    assert.equal(err.name, 'SpeedscopeFormatError');
    assert.match(err.message, message);
    assert.ok(!err.message.includes('\n'));
    return true;
  });
}

test('200,000 nested opens (8 MB) are refused from the frames their samples would hold, counted before any is built', () => {
  // Before: the budget grew with the events (4 M + 256 a frame), and the file was refused only
  // after 15-26 s and 3.1 GB of stacks built.
  const bytes = nestedOpens(200_000);
  assert.ok(bytes.length > 7.5e6, `${bytes.length} bytes`);
  const started = performance.now();
  const heapBefore = process.memoryUsage().heapUsed;
  refused(bytes, /^Not a readable speedscope file: evented profile 0 opens frames so deeply \(8,000 at once\) that its samples would hold more than 32,000,000 frames in all, the most clrscope reads of one file\.$/);
  const ms = performance.now() - started;
  assert.ok(ms < 3000, `${ms.toFixed(0)} ms`);
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 200e6);
});

test('the file is read where it lies: keys in any order, nothing of it parsed whole', () => {
  // profiles before shared, unknown keys of any shape, frames read only when named.
  const text = `{"profiles":[{"weights":[2,3],"samples":[[0,1],[0]],"unit":"milliseconds","extra":{"a":[[],{}]},"endValue":5,"startValue":0,"name":"t","type":"sampled"}],`
    + `"name":"x","shared":{"other":null,"frames":[{"name":"Main","file":"M.cs"},{"line":3,"name":"Work"},{"name":7}]},"exporter":"speedscope@1"}`;
  const rec = fromSpeedscope(encoder.encode(text));
  assert.equal(toCollapsed(rec, { metric: 'cpu', groupByThread: true }), 't;Main 3000000\nt;Main;Work 2000000\n');
  // A frame that is never named may be anything; one that is named must have a name.
  refused(encoder.encode(text.replace('[[0,1],[0]]', '[[0,1],[2]]')), /frame 2 has no name/);
  refused(encoder.encode(`${text} x`), /not valid JSON \(it breaks off at byte \d+\)/);
  refused(encoder.encode(text.replace('"extra":{"a":[[],{}]}', `"extra":${'['.repeat(5000)}${']'.repeat(5000)}`)), /nests lists or objects more than 1000 deep at byte \d+, deeper than any profile/);
});

test('samples beyond the budget are refused before any is built', () => {
  const empty = `[${new Array<string>(MAX_SAMPLES + 1).fill('[]').join(',')}]`;
  const weights = `[${new Array<string>(MAX_SAMPLES + 1).fill('1').join(',')}]`;
  const bytes = encoder.encode(`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"t","unit":"none","startValue":0,"endValue":1,"samples":${empty},"weights":${weights}}]}`);
  refused(bytes, /the samples of profile 0 would make more than 4,000,000 samples, the most clrscope reads of one file/);
});
