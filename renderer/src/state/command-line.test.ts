import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitArguments } from './command-line.js';

describe('splitArguments', () => {
  it('splits on blanks and keeps quoted groups together', () => {
    assert.deepEqual(splitArguments('  app.dll cpu-ratio  --seconds 20 '), ['app.dll', 'cpu-ratio', '--seconds', '20']);
    assert.deepEqual(splitArguments(`"/my dir/app.dll" --name 'a b' x\\ y`), ['/my dir/app.dll', '--name', 'a b', 'x y']);
    assert.deepEqual(splitArguments('--empty ""'), ['--empty', '']);
    assert.deepEqual(splitArguments('"say \\"hi\\""'), ['say "hi"']);
    assert.deepEqual(splitArguments(''), []);
  });

  it('says so when a quote is left open', () => {
    assert.throws(() => splitArguments('"open'), /unclosed " quote/);
  });
});
