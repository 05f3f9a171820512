import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { INCOMPLETE_STACK_FUNCTION_ID } from '../../profile/recording.js';
import { topMethods } from '../../profile/top-methods.js';
import { FunctionKind, SampleFlags } from '../../wire/records.js';
import { frameFromLabel } from '../../profile/frame-from-label.js';
import { RecordingBuilder } from './stream-builder.js';

test('frame labels come back as the functions frameLabel() drew them from', () => {
  assert.deepEqual(frameFromLabel('libc.so.6!futex_wait'), { kind: FunctionKind.Native, name: 'futex_wait', module: 'libc.so.6' });
  assert.deepEqual(frameFromLabel('[libcoreclr.so]'), { kind: FunctionKind.Native, name: '', module: 'libcoreclr.so' });
  assert.deepEqual(frameFromLabel('[frames elided]'), { kind: FunctionKind.Synthetic, name: '[frames elided]', module: '' });
  assert.deepEqual(frameFromLabel('App.Program.Main'), { kind: FunctionKind.Managed, name: 'App.Program.Main', module: '' });
  assert.deepEqual(frameFromLabel('App.Program.Main', 'App.dll'), { kind: FunctionKind.Managed, name: 'App.Program.Main', module: 'App.dll' });
  // A known module must agree with the label's, or the '!' is part of a name.
  assert.deepEqual(frameFromLabel('libc.so.6!read', 'libc.so.6'), { kind: FunctionKind.Native, name: 'read', module: 'libc.so.6' });
  assert.deepEqual(frameFromLabel('a.b!c', 'Other.dll'), { kind: FunctionKind.Managed, name: 'a.b!c', module: 'Other.dll' });
  assert.deepEqual(frameFromLabel('Hello world!'), { kind: FunctionKind.Managed, name: 'Hello world!', module: '' });
  assert.deepEqual(frameFromLabel('[unknown]'), { kind: FunctionKind.Synthetic, name: '[unknown]', module: '' });
  assert.deepEqual(frameFromLabel('[unknown]', 'App.dll'), { kind: FunctionKind.Managed, name: '', module: 'App.dll' });
  // The garbage collector's frame looks like a library's but is the profiler's marker.
  assert.deepEqual(frameFromLabel('[GC]'), { kind: FunctionKind.Synthetic, name: '[GC]', module: '' });
  assert.deepEqual(frameFromLabel('[dotnet]', 'dotnet'), { kind: FunctionKind.Native, name: '', module: 'dotnet' });
  assert.deepEqual(frameFromLabel('dotnet!main'), { kind: FunctionKind.Native, name: 'main', module: 'dotnet' });
  // The runtime's stubs, named from its perf map, stay synthetic so runtime folding charges them to their caller.
  assert.deepEqual(frameFromLabel('[runtime stub] JIT_CopiedWriteBarriers'), { kind: FunctionKind.Synthetic, name: '[runtime stub] JIT_CopiedWriteBarriers', module: '' });
  assert.deepEqual(frameFromLabel('[runtime stub]'), { kind: FunctionKind.Synthetic, name: '[runtime stub]', module: '' });
});

test('the builder defines each function and thread once and restores incomplete roots', () => {
  const b = new RecordingBuilder({ flags: 3, source: 'test', startUnixNs: 5n, intervalNs: 1e6 });
  const main = b.frame('App.Main', 'Main.cs');
  assert.equal(b.frame('App.Main', 'Main.cs'), main);
  const wait = b.frame('libc.so.6!futex_wait');
  const incomplete = b.frame('[incomplete stack]');
  assert.equal(incomplete, INCOMPLETE_STACK_FUNCTION_ID);
  const t = b.thread('worker', 7);
  assert.equal(b.thread('worker', 7), t);
  b.sample(10, t, SampleFlags.Wall, 0, 100, [wait, main]);
  b.sample(20, t, SampleFlags.Cpu, 40, 0, [main, incomplete]);
  b.sample(30, t, SampleFlags.Cpu, 2, 0, [incomplete]);
  b.sample(40, t, SampleFlags.Cpu, 1, 0, [incomplete, main]);
  const rec = b.finish();
  assert.equal(rec.meta?.profilerVersion, 'test');
  assert.equal(rec.meta?.startUnixNs, 5n);
  assert.equal(rec.cut, false);
  assert.equal(rec.sampleFlags(1), SampleFlags.Cpu | SampleFlags.Incomplete);
  assert.equal(toCollapsed(rec, { metric: 'cpu', groupByThread: true }), [
    'worker;App.Main;[incomplete stack] 1',
    'worker;[incomplete stack] 2',
    'worker;[incomplete stack];App.Main 40',
    '',
  ].join('\n'));
  // Natives stay native: self time goes to the managed frame that waited.
  assert.equal(topMethods(rec, 'wall', 1)[0].name, 'App.Main');
  assert.equal(rec.functions().filter((f) => f.name === 'App.Main').length, 1);
});

test('stacks deeper than the wire allows are cut in the middle and marked elided', () => {
  const b = new RecordingBuilder({ flags: 1, source: 'test' });
  const t = b.thread('', 1);
  const [leaf, middle, root] = [b.frame('Leaf'), b.frame('Middle'), b.frame('Root')];
  const frames = Array.from({ length: 70_000 }, (_, i) => (i === 0 ? leaf : i === 69_999 ? root : middle));
  b.sample(0, t, SampleFlags.Cpu, 1, 0, frames);
  const rec = b.finish();
  const stack = rec.stackFrames(rec.sampleStackId(0));
  assert.equal(stack.length, 0xffff);
  assert.equal(rec.functionInfo(stack[0])?.name, 'Leaf');
  assert.equal(rec.functionInfo(stack[stack.length - 1])?.name, 'Root');
  assert.ok(Array.from(stack).some((id) => rec.functionInfo(id)?.name === '[frames elided]'));
  assert.equal(rec.sampleFlags(0) & SampleFlags.Elided, SampleFlags.Elided);
});
