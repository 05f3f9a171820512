import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMethodPattern, patternNames, type MethodPattern } from './method-pattern.js';

function parse(text: string): MethodPattern {
  const p = parseMethodPattern(text);
  assert.ok(typeof p !== 'string', `${text}: ${String(p)}`);
  return p;
}

// The same cases as native-profiler/tests/method_pattern_test.cpp.
test('patterns name a type and a method, as the profiler reads them', () => {
  assert.deepEqual(parse('Measure.Target.A'), { text: 'Measure.Target.A', type: 'Measure.Target', method: 'A' });
  assert.equal(parse('  Measure.Target.*  ').method, undefined);
  assert.deepEqual(parse('Measure.Outer+Inner..ctor'), { text: 'Measure.Outer+Inner..ctor', type: 'Measure.Outer+Inner', method: '.ctor' });
  assert.equal(parse('Measure.Cache<System.Collections.Generic.List<System.Int32>>.Get<System.String>').type, 'Measure.Cache');
  assert.equal(parse('Measure.Target.B(int, string)').method, 'B');
  assert.equal(parse('Measure.Cache`2.Get').type, 'Measure.Cache');
});

test('what is not a pattern gets the profiler\'s sentence', () => {
  const cases: [string, string][] = [
    ['', "'' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"],
    ['Main', "'Main' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"],
    ['Ns.Type.', "'Ns.Type.' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"],
    ['.Main', "'.Main' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"],
    ['Ns.*.Run', "'Ns.*.Run' uses * where only the whole method name may be one: Namespace.Type.*"],
    ['Ns.Type.Get*', "'Ns.Type.Get*' uses * where only the whole method name may be one: Namespace.Type.*"],
    ['Ns.List<int.Add', "'Ns.List<int.Add' has generic brackets < > that do not pair up"],
    ['Ns.Ty pe.M', "'Ns.Ty pe.M' has a space inside the name"],
  ];
  for (const [text, sentence] of cases) assert.equal(parseMethodPattern(text), sentence);
});

test('a pattern names the methods the profiler reports for it', () => {
  assert.ok(patternNames(parse('Measure.Work.*'), 'Measure.Work.A'));
  assert.ok(patternNames(parse('Measure.Work.*'), 'Measure.Work..ctor'));
  assert.ok(!patternNames(parse('Measure.Work.*'), 'Measure.Work+Inner.A'));
  assert.ok(patternNames(parse('Measure.Work.A'), 'Measure.Work.A'));
  assert.ok(!patternNames(parse('Measure.Work.A'), 'Measure.Work.AB'));
  assert.ok(!patternNames(parse('Measure.Work.A'), 'Measure.WorkX.A'));
});
