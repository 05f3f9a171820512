import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { parseHexText } from '../../wire/hex-text.js';
import { SampleFlags } from '../../wire/records.js';
import { splitMethodLabel, traceLogMethodName } from './method-layout.js';
import { fromNettrace } from './nettrace-reader.js';
import { MAX_STACK_FRAMES, nettraceChunks, toNettrace } from './recording-to-nettrace.js';
import { busyRecording, smallRecording } from './fixture-recordings.test-support.js';

// Tests run from dist/structs/formats/nettrace/; the fixtures stay in the source tree.
const fixtureText = readFileSync(new URL('../../../../structs/formats/nettrace/fixtures/small.nettrace.hex', import.meta.url), 'utf8');

/** The comment above the hex line holding byte `offset` of the fixture, to say where a mismatch is. */
function fixtureCommentAt(offset: number): string {
  let at = 0;
  let comment = '';
  for (const line of fixtureText.split('\n')) {
    if (line.startsWith('#')) {
      comment = line;
      continue;
    }
    at += line.replace(/\s+/g, '').length / 2;
    if (at > offset) return comment;
  }
  return '(past the end of the fixture)';
}

test('the small recording is written byte for byte as fixtures/small.nettrace.hex spells it', () => {
  const want = parseHexText(fixtureText);
  const got = toNettrace(smallRecording());
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) {
    if (got[i] !== want[i]) assert.fail(`byte ${i} is 0x${got[i].toString(16)}, the fixture says 0x${want[i].toString(16)}; fixture: ${fixtureCommentAt(i)}`);
  }
  assert.equal(got.length, want.length, 'file length');
});

test('streamed chunks concatenate to the whole file, whatever the chunk size', () => {
  const rec = busyRecording(3000);
  const whole = [...nettraceChunks(rec, { maxBlockBytes: 2000 })];
  for (const chunkBytes of [1, 100, 4096]) {
    const parts = [...nettraceChunks(rec, { chunkBytes, maxBlockBytes: 2000 })];
    assert.ok(parts.length > 1);
    assert.deepEqual(Buffer.concat(parts), Buffer.concat(whole), `chunkBytes ${chunkBytes}`);
  }
});

test('progress reaches the total', () => {
  const seen: [number, number][] = [];
  toNettrace(busyRecording(100_000), (done, total) => seen.push([done, total]));
  assert.ok(seen.length >= 2);
  assert.deepEqual(seen[seen.length - 1], [100_000, 100_000]);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i][0] >= seen[i - 1][0]);
});

test('small blocks and frequent sequence points (stacks written again in each region) read back the same', () => {
  const rec = busyRecording(5000, { depth: 20 });
  const bytes = [...nettraceChunks(rec, { maxBlockBytes: 600, blocksPerSequencePoint: 2 })];
  const back = fromNettrace(bytes);
  assert.equal(back.sampleCount, rec.sampleCount);
  assert.equal(toCollapsed(back, { metric: 'samples', groupByThread: true }), toCollapsed(rec, { metric: 'samples', groupByThread: true }));
});

test('samples out of time order are written in time order', () => {
  const rec = busyRecording(1000, { shuffled: true });
  const back = fromNettrace(toNettrace(rec));
  const mono = back.sampleColumns().mono;
  for (let i = 1; i < mono.length; i++) assert.ok(mono[i] >= mono[i - 1], `sample ${i}`);
  assert.deepEqual([...mono].sort((a, b) => a - b), [...rec.sampleColumns().mono].sort((a, b) => a - b));
});

test('a stack deeper than the limit keeps its ends around an elided-frames marker', () => {
  const rec = busyRecording(3, { depth: 5000 });
  const back = fromNettrace(toNettrace(rec));
  const frames = Array.from(back.stackFrames(back.sampleStackId(0)), (id) => back.functionInfo(id)?.name);
  assert.equal(frames.length, MAX_STACK_FRAMES);
  assert.equal(frames[MAX_STACK_FRAMES - 65], '[frames elided]');
  assert.ok((back.sampleFlags(0) & SampleFlags.Elided) !== 0);
  const original = Array.from(rec.stackFrames(rec.sampleStackId(0)), (id) => rec.functionInfo(id)?.name);
  assert.deepEqual(frames.slice(0, 4030), original.slice(0, 4030));
  assert.deepEqual(frames.slice(-64), original.slice(-64));
});

test('labels split so that TraceEvent\'s namespace + "." + name gives them back', () => {
  const cases: [string, string, string][] = [
    ['Clrscope.Targets.Scenarios.CpuWork.Heavy', 'Clrscope.Targets.Scenarios.CpuWork', 'Heavy'],
    ['App.Foo+<RunAsync>d__5.MoveNext', 'App.Foo+<RunAsync>d__5', 'MoveNext'],
    ['App.Gen<System.Int32>.Get', 'App.Gen<System.Int32>', 'Get'],
    ['App.Dict`2[System.String,System.Int32].Add', 'App.Dict`2[System.String,System.Int32]', 'Add'],
    ['App.Widget..ctor', 'App.Widget', '.ctor'],
    ['libc.so.6!pthread_cond_wait', 'libc.so', '6!pthread_cond_wait'],
    ['[libcoreclr.so]', '[libcoreclr', 'so]'],
    ['[GC (background).x]', '[GC (background)', 'x]'],
  ];
  for (const [label, namespace, name] of cases) {
    assert.deepEqual(splitMethodLabel(label), { namespace, name }, label);
    assert.equal(traceLogMethodName(label), label);
  }
  // No dot at all: TraceLog puts one in front of the name.
  assert.deepEqual(splitMethodLabel('[incomplete stack]'), { namespace: '', name: '[incomplete stack]' });
  assert.equal(traceLogMethodName('[incomplete stack]'), '.[incomplete stack]');
});
