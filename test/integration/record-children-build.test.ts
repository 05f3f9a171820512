// `clrscope record --children -- dotnet build` of a two-project solution: the C# compiler runs
// as .NET processes of its own (csc), and their methods must be in the recording under their
// own processes. MSBuild node reuse and the MSBuild server are off, as the README advises for
// recording a build, so no process is left running with the profiler afterwards.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from './support/run-cli.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import type { Recording } from '../../structs/profile/recording.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-build-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A library and an app that references it: two compilations, so two csc processes. */
function writeSolution(): string {
  const file = (path: string, text: string): void => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  file('Lib/Lib.csproj', '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>\n</Project>\n');
  file('Lib/Greeter.cs', 'namespace Lib;\npublic static class Greeter { public static string Hello(string who) => $"Hello, {who}"; }\n');
  file('App/App.csproj', '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework></PropertyGroup>\n  <ItemGroup><ProjectReference Include="../Lib/Lib.csproj" /></ItemGroup>\n</Project>\n');
  file('App/Program.cs', 'System.Console.WriteLine(Lib.Greeter.Hello("build"));\n');
  return join(dir, 'App', 'App.csproj');
}

/** Names of the managed methods on the stacks of a process's samples. */
function methodsOf(rec: Recording, pid: number): Set<string> {
  const names = new Set<string>();
  const seen = new Set<number>();
  rec.forEachSample((_i, _mono, threadId, stackId) => {
    if (rec.processOf(threadId)?.pid !== pid || seen.has(stackId)) return;
    seen.add(stackId);
    for (const f of rec.stackFrames(stackId)) names.add(rec.functionInfo(f)?.name ?? '');
  });
  return names;
}

describe('record --children -- dotnet build', () => {
  it('records the build and each compiler process, and leaves nothing running with the profiler', async () => {
    const project = writeSolution();
    const file = join(dir, 'build.clrscope');
    const run = await runCli(['record', '--children', '-o', file, '--', 'dotnet', 'build', project, '--nologo', '-v', 'q'], {
      cwd: dir,
      env: { MSBUILDDISABLENODEREUSE: '1', DOTNET_CLI_USE_MSBUILD_SERVER: '0', DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
      timeoutMs: 300_000,
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /Build succeeded/);
    const rec = (await readRecordingFile(file)).recording;
    const [build, ...children] = rec.processes();
    assert.equal(build.pid, rec.meta?.pid);
    assert.ok([...methodsOf(rec, build.pid)].some((n) => n.startsWith('Microsoft.Build.')), 'MSBuild\'s methods in the dotnet build process');
    const compilers = children.filter((p) => [...methodsOf(rec, p.pid)].some((n) => n.startsWith('Microsoft.CodeAnalysis.')));
    assert.ok(compilers.length >= 2, `two compilations, each with the compiler's methods under its own process: ${JSON.stringify(children)}\n${run.stderr}`);
    for (const p of compilers) assert.match(run.stderr, new RegExp(`^  ${p.pid} \\([^)]*csc[^)]*\\): [\\d,]+ samples$`, 'm'));
    assert.ok(!methodsOf(rec, build.pid).has('Microsoft.CodeAnalysis.CommonCompiler.CompileAndEmit'), 'the compiler ran in its own processes, not in the build\'s');
    assert.doesNotMatch(run.stderr, /still running with clrscope's profiler loaded/);
  });
});
