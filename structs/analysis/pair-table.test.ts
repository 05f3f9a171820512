import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PairTable } from './pair-table.js';

test('pairs get dense indexes in order of first appearance, through growth and rehashing', () => {
  const t = new PairTable(4);
  const n = 50_000;
  for (let i = 0; i < n; i++) assert.equal(t.intern(i % 1000, Math.floor(i / 1000)), i);
  assert.equal(t.size, n);
  for (let i = 0; i < n; i += 997) {
    assert.equal(t.intern(i % 1000, Math.floor(i / 1000)), i);
    assert.equal(t.find(i % 1000, Math.floor(i / 1000)), i);
    assert.equal(t.first[i], i % 1000);
    assert.equal(t.second[i], Math.floor(i / 1000));
  }
  assert.equal(t.find(5, 999), -1);
  assert.equal(t.intern(-1, 0), n, 'negative keys work too');
  assert.equal(t.find(0, -1), -1);
});
