// `clrscope ps` and the diagnostics IPC client against real .NET processes: a normally started
// target is listed with its command line and runtime version and is attachable; a non-.NET
// process is not listed; a process started with DOTNET_EnableDiagnostics=0 is listed as not
// attachable with the reason (decided: listed, because the user sees it in `ps` and should
// learn why clrscope cannot attach); a stopped process costs one timeout and recovers; a
// process started under clrscope shows its profiler loaded. The attach itself is tested where
// `record --pid` is.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diagnosticsSocket, processInfo, processInfo2 } from '../../electron/services/diagnostics/client.js';
import { DiagnosticsError } from '../../electron/services/diagnostics/diagnostics-error.js';
import { exchange } from '../../electron/services/diagnostics/transport.js';
import { readStat } from '../../electron/services/diagnostics/proc.js';
import { socketName } from '../../electron/services/diagnostics/socket-location.js';
import { decodeHresultPayload, decodeReply, encodeMessage, encodeProcessInfoRequest, encodeResumeRuntimeRequest } from '../../structs/diagnostics/codec.js';
import { HRESULT } from '../../structs/diagnostics/hresults.js';
import { launchProfiled } from '../../electron/services/recording/profiled-launch.js';
import { PROFILER, ROOT, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import type { ProcessInfo } from '../../structs/api/contract.js';

type PsEntry = ProcessInfo;

const started: ChildProcess[] = [];
after(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts Scenarios `sleep` and resolves with its pid once it printed READY (its runtime is up). */
function startScenarios(seconds: number, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn('dotnet', [targetDll('Scenarios'), 'sleep', '--seconds', String(seconds)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no READY line within 20 s:\n${out}`)), 20000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^READY (\{.*\})$/m.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, pid: (JSON.parse(m[1]) as { pid: number }).pid });
      }
    });
    child.once('exit', (code) => reject(new Error(`Scenarios exited with ${code} before READY:\n${out}`)));
  });
}

async function ps(...args: string[]): Promise<PsEntry[]> {
  const r = await runCli(['ps', '--json', ...args], { timeoutMs: 30000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout) as PsEntry[];
}

/** The versions of Microsoft.NETCore.App installed next to the dotnet host on PATH. */
function installedRuntimes(): string[] {
  const r = spawnSync('dotnet', ['--list-runtimes'], { encoding: 'utf8' });
  return [...r.stdout.matchAll(/^Microsoft\.NETCore\.App (\S+) /gm)].map((m) => m[1]);
}

async function failureOf(promise: Promise<unknown>): Promise<DiagnosticsError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof DiagnosticsError, String(err));
    return err;
  }
  assert.fail('expected a DiagnosticsError');
}

describe('clrscope ps', () => {
  it('lists a normally started target with its command line and runtime version, attachable', async () => {
    const { pid } = await startScenarios(20);
    const list = await ps();
    const entry = list.find((p) => p.pid === pid);
    assert.ok(entry !== undefined, `pid ${pid} in ${JSON.stringify(list)}`);
    assert.deepEqual(Object.keys(entry), ['pid', 'name', 'commandLine', 'runtimeVersion', 'attachable', 'eventPipeOnly', 'reason', 'clrscopeLoaded', 'container']);
    assert.equal(entry.name, 'Scenarios');
    // The runtime reports the host's full path and the app's full path, then the arguments.
    assert.equal(entry.commandLine, `${readlinkSync(`/proc/${pid}/exe`)} ${targetDll('Scenarios')} sleep --seconds 20`);
    assert.match(entry.runtimeVersion ?? '', /^10\.0\.\d+$/);
    assert.ok(installedRuntimes().includes(entry.runtimeVersion ?? ''), `${entry.runtimeVersion} is an installed runtime`);
    assert.equal(entry.attachable, true);
    assert.equal(entry.reason, null);
    assert.equal(entry.clrscopeLoaded, false);
    assert.equal(entry.container, null, 'a process in our own namespaces has no container');

    // The table says the same for people.
    const table = await runCli(['ps'], { timeoutMs: 30000 });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^\s*PID\s+NAME\s+RUNTIME\s+ATTACH\s+COMMAND LINE$/m);
    assert.match(table.stdout, new RegExp(`^\\s*${pid}\\s+Scenarios\\s+10\\.0\\.\\d+\\s+yes\\s+\\S*dotnet \\S*Scenarios\\.dll sleep --seconds 20$`, 'm'));
  });

  it('agrees with an independent reader, dotnet-trace ps, when it is installed', async (t) => {
    const tool = join(ROOT, 'scripts', 'bench', '.tools', 'dotnet-trace');
    if (!existsSync(tool)) {
      t.skip('dotnet-trace is not installed (scripts/bench/overhead.mjs installs it when it can)');
      return;
    }
    const { pid } = await startScenarios(20);
    const theirs = spawnSync(tool, ['ps'], { encoding: 'utf8' });
    assert.equal(theirs.status, 0, theirs.stderr);
    assert.match(theirs.stdout, new RegExp(`^\\s*${pid}\\s+dotnet\\s`, 'm'));
    assert.ok((await ps()).some((p) => p.pid === pid && p.attachable));
  });

  it('does not list a process that is not .NET', async () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    started.push(sleeper);
    await new Promise((r) => sleeper.once('spawn', r));
    assert.ok(!(await ps()).some((p) => p.pid === sleeper.pid));
    const err = await failureOf(processInfo2(sleeper.pid ?? 0));
    assert.equal(err.failure, 'not-dotnet');
    assert.equal(err.message, `Process ${sleeper.pid} (sleep) is not a .NET process: it has no .NET runtime diagnostics socket.`);
  });

  it('lists a process started with DOTNET_EnableDiagnostics=0 as not attachable, saying why', async () => {
    const { pid } = await startScenarios(20, { DOTNET_EnableDiagnostics: '0' });
    // Its own socket would carry its start time: a socket of an earlier process of the same pid
    // (killed, its file left behind) is not its.
    const key = (await readStat(pid))?.startTime;
    assert.ok(key !== undefined, 'it runs');
    assert.ok(!readdirSync('/tmp').includes(socketName(pid, key)), 'it has no socket');
    const entry = (await ps()).find((p) => p.pid === pid);
    assert.ok(entry !== undefined, 'listed');
    assert.equal(entry.name, 'Scenarios');
    assert.equal(entry.attachable, false);
    assert.equal(entry.reason, 'it was started with DOTNET_EnableDiagnostics=0, so its runtime has no diagnostics socket');
    assert.match(entry.runtimeVersion ?? '', /^10\.0\.\d+$/, 'the version comes from the runtime library it mapped');
    const err = await failureOf(processInfo2(pid));
    assert.equal(err.failure, 'diagnostics-disabled');
    assert.equal(err.message, `Process ${pid} (dotnet) was started with DOTNET_EnableDiagnostics=0, which turns off the runtime's diagnostics socket and profilers alike, so clrscope cannot attach to it: restart it without that setting.`);
  });

  it('a stopped process costs one timeout, is listed as not answering, and answers again once continued', async () => {
    const { child, pid } = await startScenarios(30);
    child.kill('SIGSTOP');
    try {
      const start = Date.now();
      const entry = (await ps('--timeout', '300')).find((p) => p.pid === pid);
      const took = Date.now() - start;
      assert.ok(took < 10000, `ps took ${took} ms`);
      assert.ok(entry !== undefined);
      assert.equal(entry.attachable, false);
      assert.equal(entry.reason, 'its runtime did not answer within 300 ms (hung, stopped, or busy with another diagnostics client)');
    } finally {
      child.kill('SIGCONT');
    }
    // The abandoned request waits in the runtime's queue; it is served and the next one too.
    const info = await processInfo2(pid, { timeoutMs: 5000 });
    assert.equal(info.pid, pid);
    assert.ok((await ps()).some((p) => p.pid === pid && p.attachable));
  });

  it('shows clrscope\'s profiler loaded in a process started under clrscope', async (t) => {
    if (!existsSync(PROFILER)) {
      t.skip(`${PROFILER} is not built`);
      return;
    }
    const launch = await launchProfiled({
      command: 'dotnet', args: [targetDll('Scenarios'), 'sleep', '--seconds', '20'],
      intervalMs: 10, wall: false, cpu: false, libraryPath: PROFILER, output: () => undefined,
    });
    try {
      for (let i = 0; i < 200 && !existsSync(`/dev/shm/clrscope-${launch.pid}`); i++) await new Promise((r) => setTimeout(r, 50));
      const entry = (await ps()).find((p) => p.pid === launch.pid);
      assert.ok(entry !== undefined);
      assert.equal(entry.clrscopeLoaded, true);
      // Its runtime would refuse a second profiler, but an EventPipe session can still record it.
      assert.equal(entry.attachable, true);
      assert.equal(entry.eventPipeOnly, true);
      assert.equal(entry.reason, 'it already has clrscope\'s profiler loaded');
      assert.equal(entry.name, 'Scenarios');
    } finally {
      await launch.stopProgram();
      await launch.finish();
    }
  });
});

describe('the diagnostics IPC client on a real runtime', () => {
  it('ProcessInfo2 and ProcessInfo return the process\'s own pid, command line, OS and architecture', async () => {
    const { pid } = await startScenarios(20);
    const info = await processInfo2(pid);
    assert.equal(info.pid, pid);
    assert.equal(info.commandLine, `${readlinkSync(`/proc/${pid}/exe`)} ${targetDll('Scenarios')} sleep --seconds 20`);
    assert.equal(info.os, 'Linux');
    assert.equal(info.arch, process.arch === 'arm64' ? 'arm64' : 'x64');
    assert.equal(info.managedEntrypointAssemblyName, 'Scenarios');
    assert.match(info.clrProductVersion, /^10\.0\.\d+$/);
    assert.match(info.runtimeCookie, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const v1 = await processInfo(pid);
    assert.deepEqual(v1, { pid, runtimeCookie: info.runtimeCookie, commandLine: info.commandLine, os: info.os, arch: info.arch });
  });

  it('replies have the sizes the runtime source says: a 4-byte HRESULT in errors and in ResumeRuntime\'s OK', async () => {
    const { pid } = await startScenarios(20);
    const socket = await diagnosticsSocket(pid);
    const ask = async (request: Uint8Array): Promise<Uint8Array> => exchange(socket, request, { timeoutMs: 5000 });
    // An unknown command id in a known set, and an unknown set.
    for (const request of [encodeMessage(0x04, 0x7f), encodeMessage(0x09, 0x01)]) {
      const bytes = await ask(request);
      assert.equal(bytes.length, 24);
      assert.deepEqual(decodeReply(bytes), { kind: 'error', header: { size: 24, commandSet: 0xff, commandId: 0xff, reserved: 0 }, hresult: HRESULT.CORDIAGIPC_E_UNKNOWN_COMMAND });
    }
    // A wrong magic.
    const bad = encodeProcessInfoRequest();
    bad[0] = 0x58;
    assert.deepEqual(decodeReply(await ask(bad)), { kind: 'error', header: { size: 24, commandSet: 0xff, commandId: 0xff, reserved: 0 }, hresult: HRESULT.CORDIAGIPC_E_UNKNOWN_MAGIC });
    // ResumeRuntime on a runtime that is not paused is a no-op answered with OK and S_OK (the protocol description says no payload).
    const resumed = decodeReply(await ask(encodeResumeRuntimeRequest()));
    assert.ok(resumed.kind === 'ok');
    assert.equal(resumed.header.size, 24);
    assert.equal(decodeHresultPayload(resumed.payload), 0);
    // And the process is none the worse.
    assert.equal((await processInfo2(pid)).pid, pid);
  });

  it('a pid that does not exist is one sentence', async () => {
    const err = await failureOf(processInfo2(4194304 + 1));
    assert.equal(err.message, `There is no process with pid ${4194304 + 1}.`);
  });
});
