import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusal } from './record-refusal.test-support.js';


test('a missing value names what is missing, whatever follows it', () => {
  assert.equal(refusal(['--pid']), '--pid needs a process id after it (see clrscope record --help).');
  // node's parser calls this "ambiguous": the next word is another option.
  assert.equal(refusal(['--pid', '-o', 'x.pb.gz']), '--pid needs a process id after it (see clrscope record --help).');
  assert.equal(refusal(['-p', '--duration', '3']), '--pid needs a process id after it (see clrscope record --help).');
  assert.equal(refusal(['--pid', '']), '--pid needs a process id; it was given an empty one.');
  assert.equal(refusal(['--output', '--', 'dotnet']), '--output needs a file name after it (see clrscope record --help).');
});

test('a negative number is a value, refused by the option\'s own range', () => {
  assert.equal(refusal(['--pid', '-1']), "--pid must be a whole number from 1 to 2147483647, not '-1'.");
  assert.equal(refusal(['-p', '-3']), "--pid must be a whole number from 1 to 2147483647, not '-3'.");
  assert.equal(refusal(['--duration', '-2', '--', 'dotnet', 'a.dll']), "--duration must be a number from 0.001 to 2678400, not '-2'.");
});

test('no message leaks the parser\'s or the runtime\'s internals', () => {
  for (const argv of [['--pid', 'Infinity'], ['--pid', '1e400'], ['--duration', 'NaN', '--', 'x'], ['-o', '', '--', 'x'], ['--interval', '0x10', '--', 'x']]) {
    const message = refusal(argv);
    assert.doesNotMatch(message, /undefined|BigInt|ambiguous|Infinity cannot|XYZ/, message);
    assert.match(message, /^[^\n]+\.$/, 'one sentence');
  }
  assert.equal(refusal(['-o', '', '--', 'x']), 'The output file name is empty: give one with -o, e.g. -o app.pb.gz.');
});
