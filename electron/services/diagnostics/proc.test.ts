import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  appNameFromArgv, coreclrPathIn, diagnosticsSocketDisabledBy, disabledBy, mapsInclude, parseStat, profilersDisabledBy, readCmdline, readStat,
  readUid, runtimeVersionFromCoreclrPath,
} from './proc.js';

test('stat: field 22 counts from the last parenthesis, whatever the name holds', () => {
  const fields = (comm: string): string => `7612 (${comm}) S 1 7606 6020 0 -1 4194304 2031 0 0 0 9 2 0 0 20 0 9 0 547698 53792346112 8198 18446744073709551615`;
  assert.deepEqual(parseStat(fields('dotnet')), { comm: 'dotnet', startTime: '547698' });
  assert.deepEqual(parseStat(fields('a) S 1 2 (b')), { comm: 'a) S 1 2 (b', startTime: '547698' });
  assert.deepEqual(parseStat(fields('my app')), { comm: 'my app', startTime: '547698' });
  assert.equal(parseStat('7612 (dotnet) S 1 2'), undefined);
  assert.equal(parseStat('garbage'), undefined);
});

test('our own /proc entries read back', async () => {
  const own = readFileSync('/proc/self/stat', 'utf8');
  assert.equal((await readStat(process.pid))?.startTime, own.slice(own.lastIndexOf(')') + 2).split(' ')[19]);
  assert.deepEqual(await readCmdline(process.pid), process.argv.length > 0 ? readFileSync('/proc/self/cmdline', 'utf8').split('\0').slice(0, -1) : []);
  assert.equal(await readUid(process.pid), process.getuid?.());
  assert.equal(await readStat(2 ** 31 - 2), undefined);
});

test('DOTNET_ wins over COMPlus_; values are hexadecimal', () => {
  const env = (pairs: Record<string, string>): Map<string, string> => new Map(Object.entries(pairs));
  assert.equal(disabledBy(env({ DOTNET_EnableDiagnostics: '0' }), 'EnableDiagnostics'), 'DOTNET_EnableDiagnostics=0');
  assert.equal(disabledBy(env({ COMPlus_EnableDiagnostics: '0x0' }), 'EnableDiagnostics'), 'COMPlus_EnableDiagnostics=0x0');
  assert.equal(disabledBy(env({ DOTNET_EnableDiagnostics: '1', COMPlus_EnableDiagnostics: '0' }), 'EnableDiagnostics'), undefined);
  assert.equal(disabledBy(env({ DOTNET_EnableDiagnostics: '', COMPlus_EnableDiagnostics: '0' }), 'EnableDiagnostics'), 'COMPlus_EnableDiagnostics=0');
  assert.equal(disabledBy(env({ DOTNET_EnableDiagnostics: '10' }), 'EnableDiagnostics'), undefined);
  assert.equal(diagnosticsSocketDisabledBy(env({ DOTNET_EnableDiagnostics_IPC: '0' })), 'DOTNET_EnableDiagnostics_IPC=0');
  assert.equal(diagnosticsSocketDisabledBy(env({ DOTNET_EnableDiagnostics_Profiler: '0' })), undefined);
  assert.equal(profilersDisabledBy(env({ DOTNET_EnableDiagnostics_Profiler: '0' })), 'DOTNET_EnableDiagnostics_Profiler=0');
  assert.equal(profilersDisabledBy(env({})), undefined);
});

test('maps: the runtime library, its version folder, a mapped file', () => {
  const maps = [
    '5589c6a2a000-5589c6a2c000 r--p 00000000 08:01 1311 /usr/share/dotnet/dotnet',
    '7f3a40000000-7f3a40200000 r--p 00000000 08:01 2244 /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so',
    '7f3a41000000-7f3a41001000 r-xp 00000000 08:01 9999 /opt/prof/lib prof.so',
    '7ffd2a1f0000-7ffd2a211000 rw-p 00000000 00:00 0                          [stack]',
  ].join('\n');
  const path = coreclrPathIn(maps);
  assert.equal(path, '/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so');
  assert.equal(runtimeVersionFromCoreclrPath(path), '10.0.12');
  assert.equal(runtimeVersionFromCoreclrPath('/opt/app/libcoreclr.so'), undefined);
  assert.equal(coreclrPathIn('7f3a-7f3b r--p 0 08:01 1 /usr/lib/libc.so.6'), '');
  assert.ok(mapsInclude(maps, '/opt/prof/lib prof.so'));
  assert.ok(!mapsInclude(maps, '/opt/prof/lib'));
});

test('the app a dotnet host runs', () => {
  assert.equal(appNameFromArgv(['/usr/share/dotnet/dotnet', '/w/bin/Scenarios.dll', 'sleep']), 'Scenarios');
  assert.equal(appNameFromArgv(['dotnet', 'exec', '--runtimeconfig', 'x.json', 'App.Server.dll']), 'App.Server');
  assert.equal(appNameFromArgv(['dotnet', 'run']), undefined);
  assert.equal(appNameFromArgv(['/opt/app/MyService', 'x.dll']), undefined);
});
