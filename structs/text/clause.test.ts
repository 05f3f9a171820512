import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clause } from './clause.js';

test('a plain capitalised first word is lowered; acronyms, names and lower-case starts are kept', () => {
  assert.equal(clause('The reply was cut short.'), 'the reply was cut short.');
  assert.equal(clause('A file is missing'), 'a file is missing');
  assert.equal(clause('IPC header too short'), 'IPC header too short');
  assert.equal(clause('already lower'), 'already lower');
  assert.equal(clause(''), '');
});
