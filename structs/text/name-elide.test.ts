import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutMiddle, elideName } from './name-elide.js';

// Five type names of an EF Core service's allocations that differ only in their first argument:
// cut from the left (the old CSS ellipsis), all five read `…>>>` alike.
const EF = [
  'System.Collections.Immutable.ImmutableDictionary<System.Int32, System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>, Microsoft.EntityFrameworkCore.WarningBehavior>>',
  'System.Collections.Immutable.ImmutableDictionary<System.String, System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>, Microsoft.EntityFrameworkCore.WarningBehavior>>',
  'System.Collections.Generic.Dictionary<System.Int32, System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>, Microsoft.EntityFrameworkCore.WarningBehavior>>',
  'System.Collections.Generic.KeyValuePair<System.Int32, System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>, Microsoft.EntityFrameworkCore.WarningBehavior>>',
  'System.Collections.Immutable.SortedInt32KeyNode<System.Collections.Immutable.ImmutableDictionary<System.Int32, System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>, Microsoft.EntityFrameworkCore.WarningBehavior>>+HashBucket>',
];

test('a name that fits is left alone', () => {
  assert.equal(elideName('System.String', 40), 'System.String');
});

test('namespaces inside generic arguments go first', () => {
  assert.equal(
    elideName('System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<System.Int32>>', 70),
    'System.Collections.Generic.Dictionary<String, List<Int32>>',
  );
});

test('then the name\'s own namespace: the type and method stay, nested types and async state machines whole', () => {
  assert.equal(elideName('MyCompany.Orders.Services.OrderService+<PlaceOrderAsync>d__12.MoveNext()', 50), 'OrderService+<PlaceOrderAsync>d__12.MoveNext()');
  assert.equal(elideName('Microsoft.EntityFrameworkCore.Query.Internal.QueryCompiler..ctor(System.Object)', 30), 'QueryCompiler..ctor(Object)');
  assert.equal(elideName('System.Linq.Enumerable+<>c__DisplayClass5_0<System.Int32>.<Where>b__0', 60), 'Enumerable+<>c__DisplayClass5_0<Int32>.<Where>b__0');
  // A type's name keeps only itself.
  assert.equal(elideName('System.Collections.Generic.Dictionary<System.String, System.Int32>', 40, 'type'), 'Dictionary<String, Int32>');
});

test('then deeper generic arguments or all but the first, the form keeping most arguments that fits; then the middle', () => {
  const name = 'System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<System.Int32>>';
  assert.equal(elideName(name, 40, 'type'), 'Dictionary<String, List<Int32>>');
  assert.equal(elideName(name, 30, 'type'), 'Dictionary<String, List<…>>');
  assert.equal(elideName(name, 15, 'type'), 'Dictionary<…>');
  assert.equal(elideName(name, 8).length, 8);
  assert.ok(elideName(name, 8).includes('…'));
  assert.equal(cutMiddle('abcdefghij', 6), 'ab…hij');
});

test('five EF Core types that a left cut made alike stay apart at 60 characters', () => {
  const shown = EF.map((n) => elideName(n, 60, 'type'));
  for (const s of shown) assert.ok(s.length <= 60, s);
  assert.equal(new Set(shown).size, EF.length, shown.join('\n'));
  assert.deepEqual(shown, [
    'ImmutableDictionary<Int32, ValueTuple<…>>',
    'ImmutableDictionary<String, ValueTuple<…>>',
    'Dictionary<Int32, ValueTuple<Nullable<…>, WarningBehavior>>',
    'KeyValuePair<Int32, ValueTuple<…>>',
    'SortedInt32KeyNode<ImmutableDictionary<Int32,…>+HashBucket>',
  ]);
  // The old look, for the record: the last 40 characters of each are the same.
  assert.equal(new Set(EF.slice(0, 4).map((n) => n.slice(-40))).size, 1);
});

test('a generic method\'s instances keep their first arguments', () => {
  const names = ['ImmutableDictionary<System.Int32', 'ImmutableDictionary<System.String', 'Dictionary<System.Int32'].map((t) => `Microsoft.EntityFrameworkCore.ChangeTracking.Internal.StateManager.GetOrCreateEntry<System.Collections.${t},System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>,Microsoft.EntityFrameworkCore.WarningBehavior>>>`);
  // The method without its type, so that more of the arguments fit.
  assert.deepEqual(names.map((n) => elideName(n, 60)), [
    'GetOrCreateEntry<ImmutableDictionary<Int32,ValueTuple<…>>>',
    'GetOrCreateEntry<ImmutableDictionary<String,ValueTuple<…>>>',
    'GetOrCreateEntry<Dictionary<Int32,ValueTuple<…>>>',
  ]);
  assert.equal(elideName(names[2], 62), 'StateManager.GetOrCreateEntry<Dictionary<Int32,ValueTuple<…>>>', 'the type stays while it fits beside as much');
  assert.deepEqual(names.map((n) => elideName(n, 50)), [
    'GetOrCreateEntry<ImmutableDictionary<Int32,…>>',
    'GetOrCreateEntry<ImmutableDictionary<String,…>>',
    'GetOrCreateEntry<Dictionary<Int32,ValueTuple<…>>>',
  ]);
});
