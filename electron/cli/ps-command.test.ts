import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../services/errors/user-error.js';
import type { DotnetProcess } from '../services/discovery/discovery.js';
import { planPs, psJsonEntries, psTable } from './ps-command.js';

const base: DotnetProcess = {
  pid: 4242, name: 'Scenarios', commandLine: '/usr/share/dotnet/dotnet /w/Scenarios.dll sleep --seconds 20', runtimeVersion: '10.0.12',
  attachable: true, eventPipeOnly: false, reason: null, clrscopeLoaded: false, container: null, uid: 0, user: 'root', socketPath: '/tmp/dotnet-diagnostic-4242-1-socket', os: 'Linux', arch: 'x64',
};
const off: DotnetProcess = {
  ...base, pid: 17, name: 'dotnet', commandLine: 'dotnet Other.dll', runtimeVersion: null, attachable: false,
  reason: 'it was started with DOTNET_EnableDiagnostics=0, so its runtime has no diagnostics socket', socketPath: null,
};
const profiled: DotnetProcess = {
  ...base, pid: 99, name: 'Agent', commandLine: 'dotnet Agent.dll', eventPipeOnly: true,
  reason: 'it was started with another profiler (CORECLR_PROFILER={11111111-2222-3333-4444-555555555555}), and a .NET process takes only one',
};

test('options', () => {
  assert.deepEqual(planPs([]), { json: false, timeoutMs: 1500 });
  assert.deepEqual(planPs(['--json', '--timeout', '250']), { json: true, timeoutMs: 250 });
  assert.equal(planPs(['-h']), 'help');
  assert.throws(() => planPs(['--timeout', '5']), (e: unknown) => e instanceof UserError && e.message === '--timeout must be a whole number from 10 to 60000, not \'5\'.');
  assert.throws(() => planPs(['4242']), (e: unknown) => e instanceof UserError && /^Unexpected argument '4242': clrscope ps takes only options/.test(e.message));
  assert.throws(() => planPs(['--pid', '1']), (e: unknown) => e instanceof UserError && /Unknown option '--pid' \(see clrscope ps --help\)\./.test(e.message));
});

test('--json has exactly the documented keys, in order', () => {
  const json = JSON.parse(JSON.stringify(psJsonEntries([off, base]))) as Record<string, unknown>[];
  for (const entry of json) assert.deepEqual(Object.keys(entry), ['pid', 'name', 'commandLine', 'runtimeVersion', 'attachable', 'eventPipeOnly', 'reason', 'clrscopeLoaded', 'container']);
  assert.deepEqual(json[0], { pid: 17, name: 'dotnet', commandLine: 'dotnet Other.dll', runtimeVersion: null, attachable: false, eventPipeOnly: false, reason: off.reason, clrscopeLoaded: false, container: null });
});

test('the table: one row per process, the reason under the ones clrscope cannot attach to or records only through EventPipe', () => {
  assert.equal(psTable([off, profiled, base]), [
    ' PID  NAME       RUNTIME  ATTACH     COMMAND LINE',
    '  17  dotnet     -        no         dotnet Other.dll',
    '      not attachable: it was started with DOTNET_EnableDiagnostics=0, so its runtime has no diagnostics socket',
    '  99  Agent      10.0.12  eventpipe  dotnet Agent.dll',
    '      EventPipe only (approximate CPU): it was started with another profiler (CORECLR_PROFILER={11111111-2222-3333-4444-555555555555}), and a .NET process takes only one',
    '4242  Scenarios  10.0.12  yes        /usr/share/dotnet/dotnet /w/Scenarios.dll sleep --seconds 20',
  ].join('\n'));
  assert.equal(psTable([]), 'No .NET processes found.');
});

test('on a narrow terminal long lines are clipped', () => {
  const lines = psTable([off, base], 50).split('\n');
  for (const line of lines) assert.ok(line.length <= 50, line);
  assert.equal(lines[3], '4242  Scenarios  10.0.12  yes     /usr/share/dotn…');
  assert.equal(lines[2], '      not attachable: it was started with DOTNET_…');
});

test('a process in a container: a CONTAINER column with its id and its pid there, only when one is listed', () => {
  const contained: DotnetProcess = { ...base, pid: 51234, container: { pid: 1, id: '0123456789ab', cgroup: '/system.slice/docker-0123456789ab.scope' } };
  assert.equal(psTable([base, contained]), [
    '  PID  NAME       RUNTIME  ATTACH  CONTAINER           COMMAND LINE',
    ' 4242  Scenarios  10.0.12  yes     -                   /usr/share/dotnet/dotnet /w/Scenarios.dll sleep --seconds 20',
    '51234  Scenarios  10.0.12  yes     0123456789ab pid 1  /usr/share/dotnet/dotnet /w/Scenarios.dll sleep --seconds 20',
  ].join('\n'));
  const json = JSON.parse(JSON.stringify(psJsonEntries([contained]))) as Record<string, unknown>[];
  assert.deepEqual(json[0].container, { pid: 1, id: '0123456789ab', cgroup: '/system.slice/docker-0123456789ab.scope' });
});
