import { test } from 'node:test';
import assert from 'node:assert/strict';
import { count, counted } from './count.js';

test('numbers are grouped and nouns agree with them', () => {
  assert.equal(count(1234567), '1,234,567');
  assert.equal(count(999), '999');
  assert.equal(counted(1, 'thread'), '1 thread');
  assert.equal(counted(8, 'thread'), '8 threads');
  assert.equal(counted(0, 'sample'), '0 samples');
  assert.equal(counted(2000, 'runtime suspension'), '2,000 runtime suspensions');
  assert.equal(counted(1, 'process', 'processes'), '1 process');
  assert.equal(counted(3, 'process', 'processes'), '3 processes');
});
