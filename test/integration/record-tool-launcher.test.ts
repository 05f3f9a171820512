// `clrscope record -- TOOL` where TOOL is a .NET tool's launcher (issue 25). PowerShell's
// `dotnet tool` command runs Microsoft.PowerShell.GlobalTool.Shim.dll, which starts the real
// PowerShell (`dotnet pwsh.dll`) as a child process and waits for it: recorded alone, the
// launcher gave a handful of CPU samples and none of the script's work. record says before the
// program starts that it follows the processes the tool starts, and the script's CPU is in the
// recording, under PowerShell's own process. dotnet-trace's launcher (a tool that runs in the
// launched process) is recorded as before, with the same sentence.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import type { Recording } from '../../structs/profile/recording.js';
import { SampleFlags } from '../../structs/wire/records.js';

const PWSH = join(ROOT, 'test', 'soak', '.tools', 'pwsh');
const DOTNET_TRACE = join(ROOT, 'test', 'tools', '.dotnet-trace', 'dotnet-trace');
const dir = mkdtempSync(join(tmpdir(), 'clrscope-tool-launcher-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { XDG_CACHE_HOME: join(dir, 'cache'), POWERSHELL_TELEMETRY_OPTOUT: '1', POWERSHELL_UPDATECHECK: 'Off' };

/** Samples (CPU ones, or all) per pid whose stack holds a frame of `prefix`. */
function samplesIn(rec: Recording, prefix: string, cpuOnly = true): Map<number, number> {
  const byPid = new Map<number, number>();
  rec.forEachSample((_i, _mono, threadId, stackId, _cpuNs, _wallNs, flags) => {
    if (cpuOnly && (flags & SampleFlags.Cpu) === 0) return;
    if (!Array.from(rec.stackFrames(stackId)).some((f) => (rec.functionInfo(f)?.name ?? '').startsWith(prefix))) return;
    const pid = rec.processOf(threadId)?.pid ?? -1;
    byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
  });
  return byPid;
}

describe('record follows the program a .NET tool\'s launcher starts', () => {
  it('records PowerShell\'s script under the process the pwsh launcher starts', { skip: existsSync(PWSH) ? false : `${PWSH} is not installed (scripts/soak/setup-soak.sh)`, timeout: 240000 }, async () => {
    const file = join(dir, 'pwsh.clrscope');
    // A script that keeps PowerShell's engine busy for a few seconds.
    const script = '$s = 0; foreach ($i in 1..1500000) { $s += $i % 7 }; "sum $s"';
    const run = await runCli(['record', '-o', file, '--', PWSH, '-NoProfile', '-NonInteractive', '-Command', script], { env, timeoutMs: 220000 });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /sum 4500000/);
    const rec = (await readRecordingFile(file)).recording;
    const pids = rec.processes().map((p) => p.pid);
    assert.ok(pids.length >= 2, `the launcher and PowerShell: ${JSON.stringify(rec.processes())}`);
    const engine = samplesIn(rec, 'System.Management.Automation.');
    const [busiest, samples] = [...engine].sort((a, b) => b[1] - a[1])[0] ?? [-1, 0];
    // The script runs for seconds in PowerShell's engine: hundreds of 10 ms samples, in a process
    // the launcher started (not the launcher's own, which only waits).
    assert.ok(samples >= 100, `CPU samples in System.Management.Automation: ${JSON.stringify([...engine])}`);
    assert.notEqual(busiest, pids[0], 'the engine ran in the child, not in the launcher');
    assert.match(run.stderr, /pwsh is the launcher of the \.NET tool powershell 7\.6\.10 \(it runs Microsoft\.PowerShell\.GlobalTool\.Shim\.dll/);
    // Said before the program ran: the first line of record's own.
    assert.match(run.stderr.split('\n').find((l) => l.startsWith('clrscope:') && !l.includes('earlier runs')) ?? '', /launcher/);
  });

  it('records dotnet-trace, a tool that runs in its launcher, with the same sentence', { skip: existsSync(DOTNET_TRACE) ? false : `${DOTNET_TRACE} is not installed`, timeout: 120000 }, async () => {
    const file = join(dir, 'dotnet-trace.clrscope');
    const run = await runCli(['record', '-o', file, '--', DOTNET_TRACE, '--help'], { env, timeoutMs: 100000 });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /dotnet-trace is the launcher of the \.NET tool dotnet-trace 10\.\d+\.\d+ \(it runs dotnet-trace\.dll/);
    const rec = (await readRecordingFile(file)).recording;
    // Its Main ran in the one process recorded: the launched one.
    const main = samplesIn(rec, 'Microsoft.Diagnostics.Tools.Trace.Program.Main', false);
    assert.equal(main.size, 1, JSON.stringify([...main]));
    assert.ok([...main.values()][0] >= 5, JSON.stringify([...main]));
  });
});
