// Discovery against fake runtimes: `sleep` children stand in for .NET processes, each with a
// diagnostics socket named from its real start time in a temp directory, served by a fake
// runtime that answers, hangs or refuses. (Real .NET processes: test/integration/ps.test.ts.)

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHexText } from '../../../structs/wire/hex-text.js';
import { blockPathForPid } from '../../../structs/ipcblock/mapping.js';
import { startFakeRuntime, type FakeAnswer, type FakeRuntime } from '../diagnostics/fake-runtime.test-support.js';
import { readStat } from '../diagnostics/proc.js';
import { socketName } from '../diagnostics/socket-location.js';
import { clrscopeMarkerPath, listDotnetProcesses } from './discovery.js';

const fixture = (name: string): Uint8Array => parseHexText(readFileSync(new URL(`../../../../structs/diagnostics/fixtures/${name}`, import.meta.url), 'utf8'));
const MAGIC = [0x44, 0x4f, 0x54, 0x4e, 0x45, 0x54, 0x5f, 0x49, 0x50, 0x43, 0x5f, 0x56, 0x31, 0x00];
const work = mkdtempSync(join(tmpdir(), 'clrscope-discovery-test-'));
const children: ChildProcess[] = [];
const runtimes: FakeRuntime[] = [];
after(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const r of runtimes) await r.close();
  rmSync(work, { recursive: true, force: true });
});

async function sleeper(env: Record<string, string> = {}, uid?: number): Promise<{ pid: number; key: string }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore', env: { ...process.env, ...env }, ...(uid === undefined ? {} : { uid, gid: uid }) });
  children.push(child);
  await new Promise<void>((resolve) => child.once('spawn', () => resolve()));
  const pid = child.pid ?? 0;
  const key = (await readStat(pid))?.startTime;
  assert.ok(key !== undefined);
  return { pid, key };
}

async function runtimeFor(pid: number, key: string, answer: (request: Uint8Array) => FakeAnswer): Promise<FakeRuntime> {
  const rt = await startFakeRuntime(join(work, socketName(pid, key)), answer);
  runtimes.push(rt);
  return rt;
}

test('the marker file is the counters block the profiler publishes', () => {
  assert.equal(clrscopeMarkerPath(4242), blockPathForPid(4242));
});

test('answering, hung, clrscope-loaded and pre-.NET 6 runtimes; stale sockets skipped; one timeout in all', async () => {
  const answering = await sleeper();
  const hung = await sleeper();
  const loaded = await sleeper();
  const old = await sleeper();
  const reused = await sleeper();
  const gone = await sleeper();

  await runtimeFor(answering.pid, answering.key, () => fixture('process-info2-reply.hex'));
  await runtimeFor(hung.pid, hung.key, () => 'hang');
  await runtimeFor(loaded.pid, loaded.key, () => fixture('process-info2-reply.hex'));
  // .NET 5 answers ProcessInfo2 with CORDIAGIPC_E_UNKNOWN_COMMAND; ProcessInfo still works.
  await runtimeFor(old.pid, old.key, (req) => (req[17] === 0x04 ? Uint8Array.from([...MAGIC, 24, 0, 0xff, 0xff, 0, 0, 0x85, 0x13, 0x13, 0x80]) : fixture('process-info-reply.hex')));
  // A socket whose start time is not the live process's belongs to an earlier process with that pid.
  await runtimeFor(reused.pid, `${reused.key}7`, () => fixture('process-info2-reply.hex'));
  // A socket of a process that has exited.
  await runtimeFor(gone.pid, gone.key, () => fixture('process-info2-reply.hex'));
  const goneChild = children[children.length - 1];
  const exited = new Promise((r) => goneChild.once('exit', r));
  goneChild.kill('SIGKILL');
  await exited;

  const marker = join(work, 'marker');
  writeFileSync(marker, '');
  const start = Date.now();
  const list = await listDotnetProcesses({
    tempDirs: [work],
    timeoutMs: 300,
    clrscopeMarker: (pid) => (pid === loaded.pid ? marker : join(work, 'no-marker')),
  });
  const took = Date.now() - start;
  assert.ok(took < 1500, `took ${took} ms`);

  const byPid = new Map(list.map((p) => [p.pid, p]));
  const pick = (pid: number): Record<string, unknown> => {
    const p = byPid.get(pid);
    assert.ok(p !== undefined, `pid ${pid} listed`);
    return { name: p.name, commandLine: p.commandLine, runtimeVersion: p.runtimeVersion, attachable: p.attachable, eventPipeOnly: p.eventPipeOnly, reason: p.reason, clrscopeLoaded: p.clrscopeLoaded };
  };
  assert.deepEqual(pick(answering.pid), { name: 'app', commandLine: 'dotnet app.dll', runtimeVersion: '10.0.12', attachable: true, eventPipeOnly: false, reason: null, clrscopeLoaded: false });
  assert.deepEqual(pick(hung.pid), {
    name: 'sleep', commandLine: 'sleep 60', runtimeVersion: null, attachable: false, eventPipeOnly: false,
    reason: 'its runtime did not answer within 300 ms (hung, stopped, or busy with another diagnostics client)', clrscopeLoaded: false,
  });
  assert.deepEqual(pick(loaded.pid), {
    name: 'app', commandLine: 'dotnet app.dll', runtimeVersion: '10.0.12', attachable: true, eventPipeOnly: true, reason: 'it already has clrscope\'s profiler loaded', clrscopeLoaded: true,
  });
  assert.deepEqual(pick(old.pid), { name: 'sleep', commandLine: 'dotnet app.dll', runtimeVersion: null, attachable: true, eventPipeOnly: false, reason: null, clrscopeLoaded: false });
  assert.equal(byPid.get(answering.pid)?.socketPath, join(work, socketName(answering.pid, answering.key)));
  assert.equal(byPid.get(answering.pid)?.os, 'Linux');
  assert.ok(!byPid.has(reused.pid), 'a socket from an earlier process with the same pid is skipped');
  assert.ok(!byPid.has(gone.pid), 'a socket of an exited process is skipped');
  assert.ok(!byPid.has(process.pid), 'clrscope itself is not listed');
  assert.deepEqual(list.map((p) => p.pid), [...list.map((p) => p.pid)].sort((a, b) => a - b), 'sorted by pid');
});

test('many hung runtimes are asked in parallel', async () => {
  const hung = await Promise.all(Array.from({ length: 6 }, () => sleeper()));
  for (const h of hung) await runtimeFor(h.pid, h.key, () => 'hang');
  const start = Date.now();
  const list = await listDotnetProcesses({ tempDirs: [work], timeoutMs: 400 });
  const took = Date.now() - start;
  assert.ok(took < 1800, `six hung runtimes took ${took} ms`);
  for (const h of hung) assert.match(list.find((p) => p.pid === h.pid)?.reason ?? '', /did not answer within 400 ms/);
});

test('a startup profiler that is loaded (its library mapped) leaves only EventPipe; profilers turned off at startup do not stop an attach', async () => {
  // `sleep` maps libc: it plays the part of a loaded profiler library.
  const libc = /\s(\/\S*\/libc\.so\.6)$/m.exec(readFileSync('/proc/self/maps', 'utf8'))?.[1];
  assert.ok(libc !== undefined, 'libc is mapped');
  const other = '{11111111-2222-3333-4444-555555555555}';
  const withOther = await sleeper({ CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: other, CORECLR_PROFILER_PATH: libc });
  const notLoaded = await sleeper({ CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: other, CORECLR_PROFILER_PATH: '/nowhere/libprof.so' });
  const disabled = await sleeper({ CORECLR_ENABLE_PROFILING: '0', CORECLR_PROFILER: other, CORECLR_PROFILER_PATH: libc });
  const ours = await sleeper({ CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: '{03fd9b91-24d7-4053-bf50-eaa94807a91b}', CORECLR_PROFILER_64: '', CORECLR_PROFILER_PATH_64: libc });
  const profilerOff = await sleeper({ DOTNET_EnableDiagnostics_Profiler: '0' });
  for (const s of [withOther, notLoaded, disabled, ours, profilerOff]) await runtimeFor(s.pid, s.key, () => fixture('process-info2-reply.hex'));
  const list = await listDotnetProcesses({ tempDirs: [work], timeoutMs: 300 });
  const reason = (pid: number): string | null | undefined => list.find((p) => p.pid === pid)?.reason;
  const eventPipeOnly = (pid: number): boolean | undefined => list.find((p) => p.pid === pid)?.eventPipeOnly;
  const five = [withOther, notLoaded, disabled, ours, profilerOff].map((s) => list.find((p) => p.pid === s.pid));
  assert.ok(five.every((p) => p?.attachable === true), 'the runtime answers for all five, so each can be recorded one way or the other');
  assert.equal(reason(withOther.pid), `it was started with another profiler (CORECLR_PROFILER=${other}), and a .NET process takes only one`);
  assert.equal(reason(notLoaded.pid), null, 'a startup profiler that failed to load does not block an attach');
  assert.equal(reason(disabled.pid), null);
  assert.equal(reason(ours.pid), 'it was started with clrscope\'s profiler');
  assert.deepEqual([withOther, notLoaded, disabled, ours].map((s) => eventPipeOnly(s.pid)), [true, false, false, true]);
  // .NET 10 loads a profiler by attach even then (test/integration/attach.test.ts).
  assert.equal(reason(profilerOff.pid), null);
  assert.equal(eventPipeOnly(profilerOff.pid), false);
});

test('another user\'s process is listed with its owner, and attachable for root (the collector grants that user its socket)', { skip: process.getuid?.() !== 0 && 'needs root to start a process as another user' }, async () => {
  const theirs = await sleeper({}, 65534);
  await runtimeFor(theirs.pid, theirs.key, () => fixture('process-info2-reply.hex'));
  const entry = (await listDotnetProcesses({ tempDirs: [work], timeoutMs: 300 })).find((p) => p.pid === theirs.pid);
  assert.ok(entry !== undefined);
  const owner = /^([^:]+):[^:]*:65534:/m.exec(readFileSync('/etc/passwd', 'utf8'))?.[1] ?? 'uid 65534';
  assert.equal(entry.user, owner);
  assert.equal(entry.uid, 65534);
  assert.equal(entry.attachable, true, entry.reason ?? '');
  assert.equal(entry.reason, null);
  assert.equal(entry.runtimeVersion, '10.0.12', 'root may ask its runtime');
});
