import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameLines } from '../profile/frame-lines.js';
import { LINE_FIXTURE_FILE, lineFixture, lineFixtureLookup } from '../profile/line-fixture.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { WireEncoder } from '../wire/encoder.js';
import { FunctionKind, ModuleKind, OffsetKind, SampleFlags } from '../wire/records.js';
import { functionLines, heatLevel, hottestLine, HEAT_LEVELS, widenToBraces } from './function-lines.js';

const ms = 1_000_000;

test('a function\'s time per line: self on the leaf\'s line, total on every line it is at', () => {
  const rec = lineFixture();
  const f = functionLines(rec, new FrameLines(rec, lineFixtureLookup), 'App.Program.Hot', { metric: 'cpu' });
  assert.equal(f.totalValue, 47 * ms);
  assert.equal(f.self, 45 * ms);
  assert.equal(f.total, 45 * ms);
  assert.equal(f.file, LINE_FIXTURE_FILE);
  assert.deepEqual(f.lines.map((l) => [l.line, l.self / ms, l.total / ms, l.selfSamples, l.totalSamples]), [[12, 30, 30, 1, 1], [14, 10, 10, 1, 1]]);
  // IL 0x30 has no sequence point: its 5 ms stay with the function, on no line.
  assert.equal(f.unknownSelf, 5 * ms);
  assert.deepEqual(f.methods, [{ moduleId: 1, token: 0x06000002 }]);
  assert.equal(hottestLine(f.lines, f.file)?.line, 12);

  // The caller: no self, its one line carries all the time through it.
  const main = functionLines(rec, new FrameLines(rec, lineFixtureLookup), 'App.Program.Main', { metric: 'cpu' });
  assert.deepEqual(main.lines.map((l) => [l.line, l.self / ms, l.total / ms]), [[3, 0, 47]]);
  assert.equal(hottestLine(main.lines, main.file)?.line, 3);
  // A name with no samples, or no lines known: figures of zero, no file.
  const none = functionLines(rec, new FrameLines(rec, () => null), 'App.Program.Hot', { metric: 'cpu' });
  assert.equal(none.file, null);
  assert.equal(none.unknownTotal, 45 * ms);
  assert.equal(hottestLine(none.lines, null), null);
  assert.equal(functionLines(rec, new FrameLines(rec, lineFixtureLookup), 'Nope', { metric: 'cpu' }).total, 0);
});

test('recursion counts a sample once per line and once for the function', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 7, flags: 1, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: 'test' })
    .thread({ threadId: 1, osTid: 70, clrThreadId: 1, mono: 1000, name: 'main' })
    .module({ moduleId: 1, kind: ModuleKind.Managed, mvid: '11'.repeat(16), path: '/app/App.dll' })
    .function({ functionId: 2, kind: FunctionKind.Managed, name: 'App.Program.Hot', module: '', moduleId: 1, token: 0x06000002, file: '' })
    .frame({ frameId: 1, functionId: 2, offsetKind: OffsetKind.IL, offset: 0x10 })
    .frame({ frameId: 2, functionId: 2, offsetKind: OffsetKind.IL, offset: 0x20 })
    // Hot at line 12, called from Hot at line 14, called from Hot at line 14 again.
    .stack(1, 0, [1, 2, 2]);
  enc.stackSample(2000, 1, SampleFlags.Cpu, 4 * ms, 0, 1);
  enc.stackSample(2001, 1, SampleFlags.Cpu, 0, 0, 1);
  const rec = recordingFromStream([enc.bytes()]);
  const f = functionLines(rec, new FrameLines(rec, lineFixtureLookup), 'App.Program.Hot', { metric: 'cpu' });
  assert.equal(f.total, 4 * ms);
  assert.deepEqual(f.lines.map((l) => [l.line, l.self / ms, l.total / ms]), [[12, 4, 4], [14, 0, 4]]);
  // Samples counted, not their CPU: the zero-CPU sample counts too.
  const n = functionLines(rec, new FrameLines(rec, lineFixtureLookup), 'App.Program.Hot', { metric: 'samples' });
  assert.deepEqual(n.lines.map((l) => [l.line, l.self, l.total]), [[12, 2, 2], [14, 0, 2]]);
});

test('heat steps: none at zero, at least one for any time, the top step for the hottest', () => {
  assert.equal(heatLevel(0, 100), 0);
  assert.equal(heatLevel(5, 0), 0);
  assert.equal(heatLevel(Number.NaN, 10), 0);
  assert.equal(heatLevel(0.001, 100), 1);
  assert.equal(heatLevel(100, 100), HEAT_LEVELS);
  assert.equal(heatLevel(250, 100), HEAT_LEVELS);
  assert.equal(heatLevel(50, 100), HEAT_LEVELS / 2);
  assert.equal(heatLevel(51, 100), HEAT_LEVELS / 2 + 1);
});

test('a method\'s span takes in the braces an optimized build has no sequence point on', () => {
  const text = ['class C', '{', '    int M()', '    {', '        return 1;', '    }', '}'];
  assert.deepEqual(widenToBraces(text, { firstLine: 5, lastLine: 5 }), { firstLine: 4, lastLine: 6 });
  // Already on the braces (a debug build), or no brace next to it: unchanged.
  assert.deepEqual(widenToBraces(text, { firstLine: 4, lastLine: 6 }), { firstLine: 4, lastLine: 6 });
  assert.deepEqual(widenToBraces(['a', 'b'], { firstLine: 1, lastLine: 2 }), { firstLine: 1, lastLine: 2 });
});
