import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandFile, dotnetToolOf, toolLauncherNotice } from './dotnet-tool.js';

// The dotnet-trace the integration tests install as a .NET tool (test/integration/support/dotnet-trace.ts).
const TOOLS = fileURLToPath(new URL('../../../../test/tools/.dotnet-trace', import.meta.url));
const LAUNCHER = `${TOOLS}/dotnet-trace`;

test('a .NET tool\'s launcher is known by the tool store beside it, by path or on PATH', { skip: existsSync(LAUNCHER) ? false : `${LAUNCHER} is not installed` }, () => {
  const byPath = dotnetToolOf(LAUNCHER);
  assert.equal(byPath?.command, 'dotnet-trace');
  assert.equal(byPath?.packageId, 'dotnet-trace');
  assert.equal(byPath?.entryPoint, 'dotnet-trace.dll');
  assert.match(byPath?.version ?? '', /^\d+\.\d+\.\d+$/);
  assert.deepEqual(dotnetToolOf('dotnet-trace', { PATH: `/nonexistent:${TOOLS}` }), byPath);
  assert.equal(commandFile('dotnet-trace', { PATH: TOOLS }), LAUNCHER);
  assert.match(toolLauncherNotice(byPath ?? assert.fail()), /^dotnet-trace is the launcher of the \.NET tool dotnet-trace [\d.]+ \(it runs dotnet-trace\.dll, .*as --children does\.$/);
});

test('other commands are no tool\'s launcher', () => {
  assert.equal(dotnetToolOf('dotnet'), undefined);
  assert.equal(dotnetToolOf('/bin/sh'), undefined);
  assert.equal(dotnetToolOf('no-such-command-here', { PATH: '/nonexistent' }), undefined);
  // A folder in a tool store is no command.
  if (existsSync(LAUNCHER)) assert.equal(dotnetToolOf(`${TOOLS}/.store/dotnet-trace`), undefined);
});
