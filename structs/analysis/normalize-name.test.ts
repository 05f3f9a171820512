import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FunctionKind } from '../wire/records.js';
import { normalizeFunction, normalizeMethodName } from './normalize-name.js';
import { methodNameParts } from './name-parts.js';

test('metadata generic spellings become the C# spelling clrscope writes', () => {
  assert.equal(normalizeMethodName('System.Collections.Generic.HashSet`1[System.__Canon].AddIfNotPresent'), 'System.Collections.Generic.HashSet<System.__Canon>.AddIfNotPresent');
  assert.equal(normalizeMethodName('System.Collections.Generic.HashSet<System.__Canon>.AddIfNotPresent'), 'System.Collections.Generic.HashSet<System.__Canon>.AddIfNotPresent');
  assert.equal(
    normalizeMethodName('System.Collections.Generic.Dictionary`2[System.__Canon, System.Collections.Generic.List`1[System.Int32]].TryInsert'),
    'System.Collections.Generic.Dictionary<System.__Canon,System.Collections.Generic.List<System.Int32>>.TryInsert',
  );
  assert.equal(normalizeMethodName('System.Linq.Enumerable.ToList`1'), 'System.Linq.Enumerable.ToList');
  assert.equal(normalizeMethodName('App.Cache`1[System.Int32[]].Get'), 'App.Cache<System.Int32[]>.Get', 'an array type inside the arguments keeps its brackets');
  assert.equal(normalizeMethodName('App.Grid.Get(int32[,])'), 'App.Grid.Get');
});

test('an assembly prefix and a parameter list are dropped; names without them are unchanged', () => {
  assert.equal(normalizeMethodName('System.Private.CoreLib!System.Threading.Thread.StartCallback()'), 'System.Threading.Thread.StartCallback');
  assert.equal(normalizeMethodName('Demo!Clrscope.Targets.Demo.OrderService.Run(class System.Object)'), 'Clrscope.Targets.Demo.OrderService.Run');
  assert.equal(normalizeMethodName('App.Program+<>c.<Main>b__0_0'), 'App.Program+<>c.<Main>b__0_0');
  assert.equal(normalizeMethodName('App.Widget..ctor'), 'App.Widget..ctor');
});

test('a frame an importer read as native because of Assembly!Method is managed again; real natives stay native', () => {
  const imported = normalizeFunction({ id: 1, kind: FunctionKind.Native, name: 'System.Threading.Thread.StartCallback()', module: 'System.Private.CoreLib', file: '', moduleId: 0, token: 0 });
  assert.deepEqual([imported.kind, imported.name, imported.module], [FunctionKind.Managed, 'System.Threading.Thread.StartCallback', 'System.Private.CoreLib.dll']);
  const libc = { id: 2, kind: FunctionKind.Native, name: 'pthread_cond_wait', module: 'libc.so.6', file: '', moduleId: 0, token: 0 };
  assert.equal(normalizeFunction(libc), libc);
  const host = { id: 3, kind: FunctionKind.Native, name: 'main', module: 'dotnet', file: '', moduleId: 0, token: 0 };
  assert.equal(normalizeFunction(host), host);
});

test('namespace, type and method of a name; dots inside generics and a constructor\'s dot do not split', () => {
  assert.deepEqual(methodNameParts('Clrscope.Targets.Demo.OrderService.Run'), { namespace: 'Clrscope.Targets.Demo', type: 'OrderService', method: 'Run' });
  assert.deepEqual(methodNameParts('System.Collections.Generic.Dictionary<System.String,System.Int32>.TryInsert'), { namespace: 'System.Collections.Generic', type: 'Dictionary<System.String,System.Int32>', method: 'TryInsert' });
  assert.deepEqual(methodNameParts('App.Widget..ctor'), { namespace: 'App', type: 'Widget', method: '.ctor' });
  assert.deepEqual(methodNameParts('Program.Main'), { namespace: '', type: 'Program', method: 'Main' });
});
