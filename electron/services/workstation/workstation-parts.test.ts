import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countersPoint } from '../counters/counters-poller.js';
import { defaultExportName } from './export-recording.js';
import { CWD_SCRIPT, findProgram, resolveLaunch } from './launch-command.js';
import { toProcessInfo } from './processes.js';
import { UserError } from '../errors/user-error.js';
import type { CountersSource } from '../counters/counters-source.js';
import { decodeBlock } from '../../../structs/ipcblock/decode.js';
import { buildGoldenBlock } from '../../../structs/ipcblock/golden-fixtures.js';
import { SECTIONS } from '../../../structs/ipcblock/layout.js';

test('default export names come from the program, the session and the time', () => {
  const at = new Date('2026-03-04T05:06:07.890Z');
  assert.equal(defaultExportName("dotnet '/srv/my app/Orders.Api.dll' --port 5", 's3', 'pprof', at), 'Orders.Api-s3-20260304T050607Z.pb.gz');
  assert.equal(defaultExportName('dotnet /srv/Scenarios.dll cpu-ratio', 's1', 'pprof', at), 'Scenarios-s1-20260304T050607Z.pb.gz');
  assert.equal(defaultExportName('Demo order service (bundled demo)', 's2', 'pprof', at), 'Demo-s2-20260304T050607Z.pb.gz');
  assert.equal(defaultExportName('/usr/bin/../x', 's4', 'pprof', at), 'x-s4-20260304T050607Z.pb.gz');
  assert.equal(defaultExportName('', 's5', 'pprof', at), 'recording-s5-20260304T050607Z.pb.gz');
  // Every format has its extension; a file session's label loses the file's own.
  assert.equal(defaultExportName('dotnet /srv/Scenarios.dll', 's1', 'clrscope', at), 'Scenarios-s1-20260304T050607Z.clrscope');
  assert.equal(defaultExportName('trace.nettrace', 's6', 'speedscope', at), 'trace-s6-20260304T050607Z.speedscope.json');
  assert.equal(defaultExportName('app.pb.gz', 's7', 'nettrace', at), 'app-s7-20260304T050607Z.nettrace');
  assert.equal(defaultExportName('run.clrscope', 's8', 'etlx', at), 'run-s8-20260304T050607Z.etlx');
});

test('a launch in another working directory goes through sh -c … exec, after checking the folder and the program', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-cwd-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'tool'), '#!/bin/sh\n');
  chmodSync(join(dir, 'bin', 'tool'), 0o755);
  writeFileSync(join(dir, 'bin', 'data'), '');
  assert.deepEqual(await resolveLaunch('dotnet', ['a.dll'], undefined), { command: 'dotnet', args: ['a.dll'] });
  assert.deepEqual(await resolveLaunch('dotnet', ['a.dll'], process.cwd()), { command: 'dotnet', args: ['a.dll'] });
  assert.deepEqual(await resolveLaunch('./bin/tool', ['x y'], dir), { command: '/bin/sh', args: ['-c', CWD_SCRIPT, 'clrscope', dir, join(dir, 'bin', 'tool'), 'x y'] });
  assert.equal(findProgram('tool', '/', `/nonexistent:${join(dir, 'bin')}`), join(dir, 'bin', 'tool'));
  assert.equal(findProgram('data', '/', join(dir, 'bin')), undefined, 'not executable');
  await assert.rejects(resolveLaunch('./bin/data', [], dir), new UserError('Command not found: ./bin/data.'));
  await assert.rejects(resolveLaunch('dotnet', [], join(dir, 'missing')), new UserError(`The working directory ${join(dir, 'missing')} does not exist or is not a folder.`));
});

test('a counters point holds the sections of the JSON line, without its timestamp and pid', () => {
  const snapshot = decodeBlock(buildGoldenBlock({ bitness: 64, runtimeId: 7, counters: { 'm_GC.cGenCollections[0]': 4, 'm_Excep.cThrown.Total': 3 } }), 64);
  const source = { pid: 42, read: () => snapshot } as unknown as CountersSource;
  const point = countersPoint(source, new Date(1700000000000));
  assert.equal(point.timeMs, 1700000000000);
  assert.deepEqual(Object.keys(point.values), SECTIONS.map((s) => s.key));
  assert.equal(point.values.gc.genCollections0, 4);
  assert.equal(point.values.exceptions.thrown, 3);
  for (const section of Object.values(point.values)) {
    for (const value of Object.values(section)) assert.equal(typeof value, 'number');
  }
});

test('discovery\'s clauses become the contract\'s sentences', () => {
  const base = { pid: 7, name: 'App', commandLine: 'dotnet App.dll', runtimeVersion: '10.0.1', clrscopeLoaded: false, container: null, uid: 1, user: 'me', socketPath: null, os: null, arch: null };
  assert.equal(toProcessInfo({ ...base, attachable: false, eventPipeOnly: false, reason: 'profilers are disabled by DOTNET_EnableDiagnostics=0' }).reason, 'Profilers are disabled by DOTNET_EnableDiagnostics=0.');
  assert.equal(toProcessInfo({ ...base, attachable: true, eventPipeOnly: false, reason: null }).reason, null);
  const eventPipe = toProcessInfo({ ...base, attachable: true, eventPipeOnly: true, reason: 'it already has clrscope\'s profiler loaded' });
  assert.equal(eventPipe.reason, 'It already has clrscope\'s profiler loaded.');
  assert.equal(eventPipe.eventPipeOnly, true);
  assert.deepEqual(Object.keys(toProcessInfo({ ...base, attachable: true, eventPipeOnly: false, reason: null })).sort(), ['attachable', 'clrscopeLoaded', 'commandLine', 'container', 'eventPipeOnly', 'name', 'pid', 'reason', 'runtimeVersion']);
});
