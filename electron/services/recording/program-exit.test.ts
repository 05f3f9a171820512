import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandExitCode, exitCodeOf, exitText } from './program-exit.js';

test('exit codes: the code, or 128 + the signal', () => {
  assert.equal(exitCodeOf({ code: 3, signal: null }), 3);
  assert.equal(exitCodeOf({ code: null, signal: 'SIGINT' }), 130);
  assert.equal(exitCodeOf({ code: null, signal: null }), null);
});

test('a CLI command exits with the program\'s code, 128 + its signal, or 1 when neither is known', () => {
  assert.equal(commandExitCode({ code: 0, signal: null }), 0);
  assert.equal(commandExitCode({ code: 3, signal: null }), 3);
  assert.equal(commandExitCode({ code: null, signal: 'SIGKILL' }), 137);
  assert.equal(commandExitCode({ code: null, signal: null }), 1);
});

test('how the program ended, as a clause', () => {
  assert.equal(exitText({ code: 3, signal: null }), 'exited with code 3');
  assert.equal(exitText({ code: null, signal: 'SIGTERM' }), 'was ended by SIGTERM');
  assert.equal(exitText({ code: null, signal: null }), 'exited');
  assert.equal(exitText({ code: null, signal: null }, 'ended'), 'ended');
});
