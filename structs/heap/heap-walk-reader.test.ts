import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayTypeName } from './heap-walk-events.js';
import { AddressIndex } from './address-index.js';
import { HeapWalkError, HeapWalkReader } from './heap-walk-reader.js';

test('runtime type names read as dotnet-gcdump shows them', () => {
  assert.equal(displayTypeName('System.Collections.Generic.List`1[Ns.Item]'), 'System.Collections.Generic.List<Ns.Item>');
  assert.equal(displayTypeName('Ns.Item[]'), 'Ns.Item[]');
  assert.equal(displayTypeName('System.Collections.Generic.Dictionary`2[System.String,System.Object]'), 'System.Collections.Generic.Dictionary<System.String,System.Object>');
  assert.equal(displayTypeName('System.Collections.Generic.List`1[Ns.Item][]'), 'System.Collections.Generic.List<Ns.Item>[]');
});

test('the address index finds every object, and nothing at addresses no object has', () => {
  // Addresses as a heap has them: 8-aligned, in runs, in two far-apart regions (above 2^32).
  const n = 100_000;
  const addresses = new Float64Array(n);
  for (let i = 0; i < n; i++) addresses[i] = (i < n / 2 ? 0x7f0000000000 : 0x7e8000000000) + 24 * i;
  const index = new AddressIndex(addresses, n);
  for (let i = 0; i < n; i++) assert.equal(index.get(addresses[i]), i);
  assert.equal(index.get(0), -1);
  assert.equal(index.get(0x7f0000000000 + 8), -1);
  assert.equal(index.get(0x1000), -1);
});

test('a stream without a heap walk is one sentence', () => {
  const reader = new HeapWalkReader();
  assert.throws(() => reader.finish(), (err: unknown) => err instanceof HeapWalkError && /no heap walk/.test(err.message));
});
