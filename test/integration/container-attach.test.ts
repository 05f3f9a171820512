// Profiling a .NET process in a container from the host (issue 29): the target runs as pid 1 of
// its own pid namespace with private /tmp and /dev/shm (test/integration/support/in-container.ts),
// as in any container. `ps` lists it with both pids, `record --pid HOSTPID` records its hot
// method at the expected share, `counters --pid` reads its counters, a detach leaves it running
// with nothing of clrscope's left in its /tmp, and a second attach works. The bad cases (no
// permission, a read-only /tmp) end in one sentence and a non-zero exit.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { processAlive } from '../../electron/services/recording/profiled-attach.js';
import type { ProcessInfo } from '../../structs/api/contract.js';
import { heavyLightSplit } from './support/cpu-split.js';
import { clrscopeLeftovers as leftoversIn, startInContainer, unshareWorks, type ContainedTarget } from './support/in-container.js';
import { CLI, ROOT, targetDll } from './support/paths.js';
import { samplesOf } from './support/record-target.js';
import { runCli, stopAfterLines } from './support/run-cli.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-container-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const skip = unshareWorks() ? false : 'unshare cannot make mount and pid namespaces here (needs root)';

/** What clrscope left in the container's /tmp: anything but the runtime's own files. */
function clrscopeLeftovers(target: ContainedTarget): string[] {
  return leftoversIn(target.hostPid);
}

function libclrscopeMapped(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libclrscope');
}

describe('a .NET process in its own mount and pid namespaces', { skip }, () => {
  let target: ContainedTarget;
  before(async () => {
    target = await startInContainer(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '90']);
  });
  after(() => target?.kill());

  it('is listed by ps with its host pid, its pid in the container and which container, attachable', async () => {
    const r = await runCli(['ps', '--json'], { timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr);
    const entry = (JSON.parse(r.stdout) as ProcessInfo[]).find((p) => p.pid === target.hostPid);
    assert.ok(entry !== undefined, `pid ${target.hostPid} is not listed: ${r.stdout}`);
    assert.equal(target.nsPid, 1, 'the target is pid 1 of its namespace');
    assert.notEqual(target.hostPid, target.nsPid);
    assert.deepEqual(entry.container && { pid: entry.container.pid, id: /^(mnt:\d+|[0-9a-f]{12})$/.test(entry.container.id) }, { pid: 1, id: true });
    assert.equal(entry.attachable, true, entry.reason ?? '');
    assert.equal(entry.eventPipeOnly, false);
    assert.equal(entry.name, 'Scenarios', 'its runtime answered ProcessInfo2 through the socket in its /tmp');
    const table = await runCli(['ps'], { timeoutMs: 30000 });
    assert.match(table.stdout, new RegExp(`^\\s*${target.hostPid}\\s+Scenarios\\s+\\S+\\s+yes\\s+\\S+ pid 1\\s`, 'm'), table.stdout);
  });

  it('record --pid HOSTPID records Heavy at 3:1 over Light, detaches, leaves nothing in its /tmp, and attaches again', async (t) => {
    for (const round of [1, 2]) {
      const file = join(dir, `container-${round}.clrscope`);
      const r = await runCli(['record', '--pid', String(target.hostPid), '--duration', '5', '-o', file], { timeoutMs: 90000 });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`detached from pid ${target.hostPid}; it keeps running`), r.stderr);
      assert.match(r.stderr, new RegExp(`^clrscope: recorded pid ${target.hostPid} \\(pid 1 in its container\\) \\(\\.NET `, 'm'), 'both pids are said');
      assert.doesNotMatch(r.stderr, /EventPipe/, 'clrscope\'s own profiler recorded it');
      const rec = openRecording(readFileSync(file)).recording;
      assert.equal(rec.meta?.attached, true);
      const split = heavyLightSplit(samplesOf(rec), NS, 6);
      t.diagnostic(`round ${round}: ${split.line}`);
      assert.ok(Math.abs(split.share - 75) <= split.tolerance, split.line);
      // Detached: the library left the process, and what clrscope placed in its /tmp is gone.
      const deadline = Date.now() + 5000;
      while (libclrscopeMapped(target.hostPid) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      assert.ok(!libclrscopeMapped(target.hostPid), `round ${round}: libclrscope still mapped after detach`);
      assert.deepEqual(clrscopeLeftovers(target), [], `round ${round}: clrscope left files in the container's /tmp`);
      assert.ok(!existsSync(`/proc/${target.hostPid}/root/dev/shm/clrscope-1`), 'the counters block went with the profiler');
      assert.ok(processAlive(target.hostPid), 'the program keeps running');
    }
  });

  it('counters --pid HOSTPID reads its counters through its /dev/shm and detaches', async () => {
    const r = await runCli(['counters', '--pid', String(target.hostPid), '--format', 'json', '--refresh', '250'], { timeoutMs: 60000, started: stopAfterLines(3) });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { pid: number; locksAndThreads: { currentThreadsPhysical: number } });
    assert.ok(lines.length >= 2, `${lines.length} lines: ${r.stderr}`);
    assert.equal(lines[0].pid, target.hostPid, 'the host pid, as given');
    assert.ok(lines[lines.length - 1].locksAndThreads.currentThreadsPhysical >= 3, 'the runtime\'s threads (main, burn-heavy, burn-light, ...) counted');
    assert.deepEqual(clrscopeLeftovers(target), []);
    assert.ok(processAlive(target.hostPid));
  });

  it('without the right to look into it (no capabilities), says so in one sentence', async () => {
    // Root without its capabilities may not ptrace a process that has them: /proc/PID/root and its maps are closed to it.
    const r = spawnSync('setpriv', ['--bounding-set=-all', '--inh-caps=-all', process.execPath, CLI, 'record', '--pid', String(target.hostPid), '-o', join(dir, 'denied.clrscope')], { encoding: 'utf8', timeout: 60000 });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, new RegExp(`^clrscope: Process ${target.hostPid} .*may not .*CAP_SYS_PTRACE.*\\.$`, 'm'), r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
});

describe('a .NET process in a container that already has a profiler', { skip }, () => {
  it('is recorded through EventPipe over its diagnostics socket, and its counters read from the block the profiler inside publishes', async () => {
    // clrscope's own profiler, loaded at startup by a clrscope inside the container: the runtime takes no second one.
    const target = await startInContainer(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '60'], {
      launcher: [process.execPath, CLI, 'record', '-o', '/tmp/inside.clrscope', '--'],
    });
    try {
      const listed = await runCli(['ps', '--json'], { timeoutMs: 30000 });
      const entry = (JSON.parse(listed.stdout) as ProcessInfo[]).find((p) => p.pid === target.hostPid);
      assert.deepEqual(entry && { attachable: entry.attachable, eventPipeOnly: entry.eventPipeOnly, container: entry.container?.pid }, { attachable: true, eventPipeOnly: true, container: target.nsPid });
      const file = join(dir, 'container-eventpipe.clrscope');
      const r = await runCli(['record', '--pid', String(target.hostPid), '--duration', '3', '-o', file], { timeoutMs: 90000 });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`^clrscope: Process ${target.hostPid} already has clrscope's profiler loaded.*EventPipe`, 'm'), r.stderr);
      assert.match(r.stderr, new RegExp(`stopped the EventPipe session in pid ${target.hostPid}; it keeps running`));
      assert.match(r.stderr, /Top methods by CPU time[^\n]*\n[^\n]*\n\s+[\d.]+%\s+\S+ m?s\s+[\d.]+%\s+Clrscope\.Targets\.Scenarios\.CpuWork\.Heavy/, r.stderr);
      const counters = await runCli(['counters', '--pid', String(target.hostPid), '--format', 'json', '--refresh', '1000'], { timeoutMs: 60000, started: stopAfterLines(3) });
      assert.equal(counters.code, 0, `${counters.signal ?? ''} ${counters.stderr}`);
      // The block is the inside clrscope's (/dev/shm/clrscope-NSPID in the container): read as it is, no attach and no EventPipe.
      assert.doesNotMatch(counters.stderr, /EventPipe|EventCounters/);
      const lines = counters.stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { pid: number; locksAndThreads: { currentThreadsPhysical: number } });
      assert.ok(lines.length >= 2, `${lines.length} lines: ${counters.stdout} ${counters.stderr}`);
      assert.equal(lines[0].pid, target.hostPid);
      assert.ok(lines[lines.length - 1].locksAndThreads.currentThreadsPhysical >= 3);
      assert.ok(processAlive(target.hostPid));
    } finally {
      target.kill();
    }
  });
});

describe('a .NET process in a container that runs on musl', { skip }, () => {
  it('is listed as not attachable and not attached, in one sentence each', async () => {
    // No musl runtime is at hand: a harmless library (glibc's libdl stub) preloaded under the musl
    // loader's name puts /tmp/lib/ld-musl-x86_64.so.1 in the maps, which is what clrscope looks at.
    const target = await startInContainer(targetDll('Scenarios'), ['sleep', '--seconds', '60'], {
      setup: 'mkdir -p /tmp/lib && cp /usr/lib/x86_64-linux-gnu/libdl.so.2 /tmp/lib/ld-musl-x86_64.so.1 && export LD_PRELOAD=/tmp/lib/ld-musl-x86_64.so.1',
    });
    try {
      const listed = await runCli(['ps', '--json'], { timeoutMs: 30000 });
      const entry = (JSON.parse(listed.stdout) as ProcessInfo[]).find((p) => p.pid === target.hostPid);
      assert.equal(entry?.attachable, false);
      assert.match(entry?.reason ?? '', /musl libc \(an Alpine-based image\).*not built for musl yet/);
      const r = await runCli(['record', '--pid', String(target.hostPid), '-o', join(dir, 'musl.clrscope')], { timeoutMs: 60000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`^clrscope: Process ${target.hostPid} runs on musl libc .*not supported yet.*\\.$`, 'm'), r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.ok(processAlive(target.hostPid));
    } finally {
      target.kill();
    }
  });
});

describe('a .NET process in a container whose /tmp is read-only', { skip }, () => {
  it('is not attached: one sentence says what to mount', async () => {
    // The runtime makes its socket first; then /tmp turns read-only, as a read-only root filesystem with the socket's folder elsewhere would be.
    const target = await startInContainer(targetDll('Scenarios'), ['sleep', '--seconds', '60']);
    try {
      const ro = spawnSync('nsenter', ['-t', String(target.hostPid), '-m', 'mount', '-o', 'remount,ro', '/tmp'], { encoding: 'utf8' });
      assert.equal(ro.status, 0, ro.stderr);
      const r = await runCli(['record', '--pid', String(target.hostPid), '-o', join(dir, 'ro.clrscope')], { timeoutMs: 60000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`^clrscope: Process ${target.hostPid}'s /tmp is read-only.*mount a writable tmpfs there \\(docker run --tmpfs /tmp.*\\.$`, 'm'), r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.ok(processAlive(target.hostPid));
    } finally {
      target.kill();
    }
  });
});

describe('a .NET process in a container whose files are only inside it', { skip }, () => {
  it('record --pid writes its source lines, read from its own assembly and PDB through /proc/PID/root', async () => {
    // The program's folder copied into the container's own /tmp: this machine has no file at that path.
    const hotSource = join(ROOT, 'test', 'targets', 'Scenarios', 'HotLine.cs');
    const hotLine = readFileSync(hotSource, 'utf8').split('\n').findIndex((l) => /;\s*\/\/ HOT LINE$/.test(l)) + 1;
    const built = dirname(targetDll('Scenarios'));
    const target = await startInContainer('/tmp/app/Scenarios.dll', ['hot-line', '--seconds', '60'], { setup: `mkdir /tmp/app && cp -r '${built}'/. /tmp/app/` });
    try {
      assert.ok(!existsSync('/tmp/app/Scenarios.dll'), 'the assembly is not at that path here');
      const file = join(dir, 'inside-only.speedscope.json');
      const r = await runCli(['record', '--pid', String(target.hostPid), '--duration', '4', '-o', file], { timeoutMs: 90000 });
      assert.equal(r.code, 0, r.stderr);
      const frames = (JSON.parse(readFileSync(file, 'utf8')) as { shared: { frames: { name: string; file?: string; line?: number }[] } }).shared.frames;
      const mix = frames.filter((f) => f.name === 'Clrscope.Targets.Scenarios.HotLineWork.Mix');
      assert.ok(mix.some((f) => f.line === hotLine && f.file?.endsWith('HotLine.cs') === true), `no frame of Mix on HotLine.cs:${hotLine}: ${JSON.stringify(mix)}`);
      assert.deepEqual(clrscopeLeftovers(target), []);
    } finally {
      target.kill();
    }
  });
});
