// `clrscope counters` and dotnet-counters on the same process over the same seconds: a steady
// thread-pool service (test/targets/Scenarios, pool-load) read by clrscope's counters block and by
// two dotnet-counters sessions at once (the System.Runtime meter, and System.Runtime's
// EventCounters for the thread pool's thread count and queue length, which the meter's build of
// dotnet-counters shows only as a change per second). Each figure must agree within the
// tolerance written beside it, and the GC handle count must never be a wrapped 32-bit value.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI, targetDll } from './support/paths.js';
import { collectCounters, dotnetCounters, type PeerCounter } from './support/dotnet-counters.js';

type Line = Record<string, Record<string, number>> & { timestamp: string; pid: number };

const SECONDS = 16;
const PEER_SECONDS = 9;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function mean(xs: number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Within `relative` of the peer's value, or `absolute` of it, whichever is wider. */
function agrees(label: string, ours: number, peer: number, relative: number, absolute = 0): string {
  const ok = Number.isFinite(ours) && Number.isFinite(peer) && Math.abs(ours - peer) <= Math.max(Math.abs(peer) * relative, absolute);
  return ok ? '' : `${label}: clrscope ${ours.toFixed(2)}, dotnet-counters ${peer.toFixed(2)} (tolerance ${relative * 100}% or ${absolute})`;
}

describe('clrscope counters against dotnet-counters on the same process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-counters-peer-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the allocation rate, GC committed bytes, working set, CPU % and the thread pool\'s figures as the peer does, and no wrapped handle count', async (t) => {
    const tool = dotnetCounters();
    if (tool.path === undefined) {
      if (process.env.CI) assert.fail(`dotnet-counters is needed under CI: ${tool.why ?? ''}`);
      t.skip(tool.why ?? 'dotnet-counters not available');
      return;
    }
    const cli = spawn(process.execPath, [CLI, 'counters', '--format', 'json', '--refresh', '1000', '--', 'dotnet', targetDll('Scenarios'), 'pool-load', '--seconds', String(SECONDS)],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    cli.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    cli.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<number | null>((resolve) => cli.on('close', resolve));
    let meter: PeerCounter[];
    let eventCounters: PeerCounter[];
    try {
      const deadline = Date.now() + 60_000;
      while (!/READY (\{.*\})/.test(err) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const ready = /READY (\{.*\})/.exec(err);
      assert.ok(ready !== null, `the program never became ready:\n${err}`);
      const pid = (JSON.parse(ready[1]) as { pid: number }).pid;
      // Let the pool reach its steady state first.
      await new Promise((r) => setTimeout(r, 2000));
      [meter, eventCounters] = await Promise.all([
        collectCounters(tool.path, pid, PEER_SECONDS, 'System.Runtime', join(dir, 'meter.json')),
        collectCounters(tool.path, pid, PEER_SECONDS, 'EventCounters\\System.Runtime', join(dir, 'event-counters.json')),
      ]);
    } finally {
      const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 60_000))]);
      if (code === 'late') cli.kill('SIGKILL');
    }
    assert.equal(await exited, 0, err);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Line);

    // The handle count is the runtime's signed value (the program holds 5,000 handles and
    // induces a gen-2 GC every second, when the runtime recounts them): never a wrapped u32.
    for (const line of lines) {
      assert.ok(line.gc.handles < 2 ** 31, `gc.handles ${line.gc.handles} is a wrapped value`);
      const signed = line.extras?.gcHandles;
      if (signed !== undefined) assert.ok(signed >= -(2 ** 31) && signed < 2 ** 31, `extras.gcHandles ${signed}`);
    }
    assert.ok(lines.some((l) => (l.extras?.gcHandles ?? 0) >= 5000), `no reading counted the program's 5,000 handles: ${lines.map((l) => l.extras?.gcHandles).join(' ')}`);

    // The same seconds: clrscope's readings taken while both peer sessions ran.
    const peerTimes = [...meter, ...eventCounters].map((c) => c.timeMs);
    const from = Math.min(...peerTimes);
    const to = Math.max(...peerTimes);
    const ours = lines.filter((l) => { const at = Date.parse(l.timestamp); return at >= from && at <= to; });
    assert.ok(ours.length >= 5, `${ours.length} clrscope readings between the peer's first and last`);
    const field = (name: string): number[] => ours.map((l) => l.extras?.[name]).filter((v): v is number => v !== undefined);
    const peer = (set: PeerCounter[], prefix: string, tags = ''): number[] => set.filter((c) => c.name.startsWith(prefix) && (tags === '' || c.tags === tags)).map((c) => c.value);
    for (const name of ['allocBytesPerSec', 'gcCommittedBytes', 'workingSetBytes', 'cpuPercent', 'threadPoolThreads', 'threadPoolQueueLength', 'threadPoolCompletedPerSec', 'threadPoolCompleted']) {
      assert.equal(field(name).length, ours.length, `extras.${name} is missing from clrscope's readings`);
    }

    const cpuCount = median(peer(meter, 'dotnet.process.cpu.count'));
    const user = peer(meter, 'dotnet.process.cpu.time', 'cpu.mode=user');
    const system = peer(meter, 'dotnet.process.cpu.time', 'cpu.mode=system');
    const peerCpu = user.map((u, i) => (100 * (u + (system[i] ?? 0))) / cpuCount);
    const completedOurs = field('threadPoolCompleted');
    const completedPeer = peer(meter, 'dotnet.thread_pool.work_item.count');
    const figures = {
      // Rates are means over the window (each side's seconds are not the same seconds exactly).
      allocation: [mean(field('allocBytesPerSec')), mean(peer(meter, 'dotnet.gc.heap.total_allocated'))],
      committed: [median(field('gcCommittedBytes')), median(peer(meter, 'dotnet.gc.last_collection.memory.committed_size'))],
      workingSet: [median(field('workingSetBytes')), median(peer(meter, 'dotnet.process.memory.working_set'))],
      cpu: [mean(field('cpuPercent')), mean(peerCpu)],
      poolThreads: [median(field('threadPoolThreads')), median(peer(eventCounters, 'ThreadPool Thread Count'))],
      queueLength: [mean(field('threadPoolQueueLength')), mean(peer(eventCounters, 'ThreadPool Queue Length'))],
      completedPerSec: [mean(field('threadPoolCompletedPerSec')), mean(completedPeer)],
      // The running total rose by what the peer counted per second over the same span.
      completedTotal: [(completedOurs[completedOurs.length - 1] - completedOurs[0]) / Math.max(1, ours.length - 1), mean(completedPeer)],
    };
    t.diagnostic(JSON.stringify(figures));
    const problems = [
      // The program allocates 16 KiB per work item, 2,000 items a second: about 32 MB/s.
      agrees('allocation rate (bytes/s)', figures.allocation[0], figures.allocation[1], 0.15),
      agrees('GC committed bytes', figures.committed[0], figures.committed[1], 0.2),
      agrees('working set (bytes)', figures.workingSet[0], figures.workingSet[1], 0.1),
      agrees('CPU %', figures.cpu[0], figures.cpu[1], 0.3, 3),
      agrees('thread-pool threads', figures.poolThreads[0], figures.poolThreads[1], 0.25, 1),
      agrees('thread-pool queue length', figures.queueLength[0], figures.queueLength[1], 0.5, 5),
      agrees('work items completed per second', figures.completedPerSec[0], figures.completedPerSec[1], 0.15),
      agrees('work items completed (total, per second of the window)', figures.completedTotal[0], figures.completedTotal[1], 0.15),
    ].filter((p) => p !== '');
    assert.deepEqual(problems, []);
    // A sanity floor: the figures are the program's, not two readers agreeing on nothing.
    assert.ok(figures.allocation[1] > 10e6, `the program allocated only ${figures.allocation[1]} bytes/s`);
    assert.ok(figures.completedPerSec[1] > 1000, `the program completed only ${figures.completedPerSec[1]} items/s`);
  });
});
