import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandLineOf } from './command-line.js';

test('command lines read like a shell would take them', () => {
  assert.equal(commandLineOf('dotnet', ['app.dll', '--name', 'a b', '', "it's"]), `dotnet app.dll --name 'a b' '' 'it'\\''s'`);
  assert.equal(commandLineOf('sh', ['-c', 'rm -rf $HOME; `id`']), `sh -c 'rm -rf $HOME; \`id\`'`);
});
