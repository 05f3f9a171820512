// Thread-pool blocking and starvation (report --blocking) against a real ASP.NET Core program:
// RequestWeb (test/targets/RequestWeb) under 16 connections of /block/300, a sync-over-async
// endpoint (Work.BlockOn: Task.Delay(ms).Wait() on a pool thread), on a 2-core machine whose pool
// starts with 2 workers. The pool must be found short of threads from its own events, the wait
// ranked as Task.Wait at Work.BlockOn (under CoreLib's precompiled Task.Wait(), which keeps no
// frame pointer: core/r2r_unwind.h) with the /block endpoint's stacks holding the blocked time, and a
// recording of a program that serves nothing must say in one sentence that it has no pool story.
// On .NET 10 (the shared runtime), .NET 8 and .NET 9 (self-contained builds), and .NET 10 attached to.
// On .NET 9 and 10 the blocked time is the runtime's own WaitHandleWait waits (RUNTIME_EVENT records
// in the file), which must agree with the wall samples' estimate within 10%; .NET 8 raises none and
// must say so.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { WEB_DLL, attachStarved, recordStarved, type Starved } from './support/starved-pool.js';
import type { BlockingReport as Report } from '../../electron/cli/report-blocking.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import type { Recording } from '../../structs/profile/recording.js';
import { poolStory } from '../../structs/analysis/pool-story.js';
import { GC_EVENTS } from '../../structs/wire/timeline/gc-events.js';
import { RUNTIME_EVENTS, RuntimeEventId, isPoolEvent } from '../../structs/wire/timeline/runtime-events.js';

// `waits`: the runtime raises WaitHandleWait (.NET 9 and later).
const RUNTIMES: { name: string; command: string; args: string[]; attach?: boolean; waits: boolean }[] = [
  { name: '.NET 10', command: 'dotnet', args: [WEB_DLL], waits: true },
  { name: '.NET 8', command: join(ROOT, 'test', 'targets', 'RequestWeb', 'bin', 'net8.0', 'RequestWeb'), args: [], waits: false },
  { name: '.NET 9', command: join(ROOT, 'test', 'targets', 'RequestWeb', 'bin', 'net9.0', 'RequestWeb'), args: [], waits: true },
  { name: '.NET 10, attached', command: 'dotnet', args: [WEB_DLL], attach: true, waits: true },
];

for (const runtime of RUNTIMES) {
  describe(`thread-pool starvation of a real ASP.NET Core program (${runtime.name})`, { skip: runtime.command !== 'dotnet' && !existsSync(runtime.command) ? `${runtime.command} is missing: run bash scripts/build-targets.sh` : false }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'clrscope-pool-'));
    let report: Report;
    let text: string;
    let rec: Recording;
    let run: Starved;
    before(async () => {
      run = runtime.attach === true ? await attachStarved(dir) : await recordStarved(dir, runtime.command, runtime.args);
      const file = run.file;
      rec = openRecording(readFileSync(file)).recording;
      const json = await runCli(['report', file, '--blocking', '--format', 'json']);
      assert.equal(json.code, 0, json.stderr);
      report = JSON.parse(json.stdout) as Report;
      const plain = await runCli(['report', file, '--blocking']);
      assert.equal(plain.code, 0, plain.stderr);
      text = plain.stdout;
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('diagnoses the starvation from the pool\'s own events', (t) => {
      const s = report.starvation;
      t.diagnostic(s.diagnosis);
      assert.ok(s.poolEvents, 'the pool\'s events were recorded');
      assert.ok(s.starved, 'the pool was short of threads');
      // 16 requests blocking 300 ms each on a pool that starts with one worker per core: short for
      // most of the 6 s of load.
      assert.ok(s.shortMs >= 2000 && s.shortMs <= 7000, `short of threads for ${s.shortMs} ms`);
      assert.ok(s.maxThreads >= 10, `the pool grew to ${s.maxThreads} workers`);
      assert.match(s.diagnosis, /^The thread pool was short of threads for \d+\.\d s, with up to \d+ work items queued: \d+% of blocked pool-thread time was in \S*Work\.BlockOn waiting on Task\.Wait\.$/);
      assert.ok(text.startsWith(s.diagnosis), 'the text report opens with the diagnosis');
    });

    it('ranks the sync-over-async wait first, with the /block endpoint\'s stacks holding the blocked time', (t) => {
      t.diagnostic(report.blocking.slice(0, 4).map((b) => `${b.site} ${b.waitingOn} ${b.waitMs} ms ${(100 * b.share).toFixed(1)}% on ${b.threads} threads`).join('; '));
      const top = report.blocking[0];
      assert.equal(top.waitingOn, 'Task.Wait');
      // The program's own blocking method, not the endpoint's generated lambda that calls it: the
      // walk must keep BlockOn under CoreLib's precompiled, frameless Task.Wait().
      assert.ok(top.site.endsWith('Work.BlockOn'), `the site ranked first is ${top.site}`);
      // .NET 8 and 9 tier CoreLib's Task.Wait() up mid-load into JIT code that keeps no frame
      // pointer either, and JIT code's unwind codes live in the runtime's code heap, not in an
      // image the walker reads: the samples after that still lose BlockOn (2-40% of them here).
      const least = runtime.name.startsWith('.NET 10') ? 0.9 : 0.5;
      assert.ok(top.share >= least, `Work.BlockOn holds ${(100 * top.share).toFixed(1)}% of the blocked pool-thread time`);
      assert.equal(report.starvation.topSite, top.site);
      assert.ok(top.threads >= 5, `blocked ${top.threads} pool threads`);
      assert.equal(top.stack[top.stack.length - 1].endsWith('Task.Wait') || top.stack[top.stack.length - 1].includes('Task.InternalWait'), true, 'its stack ends at the wait');
      // Every Task.Wait of the program is BlockOn's, under the endpoint RequestWeb maps for /block.
      const waits = report.blocking.filter((b) => b.waitingOn === 'Task.Wait');
      const waitShare = waits.reduce((s, b) => s + b.share, 0);
      assert.ok(waitShare >= 0.95, `${(100 * waitShare).toFixed(1)}% of blocked pool-thread time is in Task.Wait`);
      assert.ok(waits.some((b) => b.site.endsWith('Work.BlockOn')), 'Work.BlockOn is named as a site');
      // The blocked time is real pool-thread time: 16 connections × 300 ms waits over ~6 s.
      assert.ok(report.starvation.blockedMs > 20_000, `blocked ${report.starvation.blockedMs} ms`);
    });

    it('records the pool\'s queue and completed work items once a second, within the program\'s own count', (t) => {
      const s = report.starvation;
      const story = poolStory(rec);
      t.diagnostic(`${story.gauges.length} gauges, up to ${s.maxQueueLength} queued, ${s.completedItems} completed; the load sent ${run.sent}, the program's pool completed ${run.completedWorkItems} in its life`);
      // One a second of the recording (6 s of load, 6-12 of them here), each about a second after
      // the last (the runtime's poller is a timer thread, late on a loaded machine, never early).
      assert.ok(story.gauges.length >= 5, `${story.gauges.length} gauges`);
      const gaps = story.gauges.slice(1).map((g, i) => g.tMs - story.gauges[i].tMs).sort((a, b) => a - b);
      const median = gaps[gaps.length >> 1];
      assert.ok(median >= 900 && median <= 1200 && gaps[0] >= 500, `gaps ${gaps.join(', ')} ms`);
      // 16 connections blocking 300 ms each on a pool that grows one thread at a time: work waits.
      assert.ok(s.maxQueueLength !== null && s.maxQueueLength >= 1, `up to ${s.maxQueueLength} queued`);
      // Each request is at least one work item (its socket's completion); none the program did not count itself.
      assert.ok(s.completedItems !== null && s.completedItems >= run.sent, `${s.completedItems} completed for ${run.sent} requests`);
      assert.ok(s.completedItems <= run.completedWorkItems, `${s.completedItems} completed, the program counted ${run.completedWorkItems}`);
      assert.ok(text.includes(`Queue: up to ${s.maxQueueLength} work items waiting`), 'the text report says it');
    });

    it('carries the pool\'s events as RUNTIME_EVENT records, none as GC_EVENT', (t) => {
      const events = rec.timeline(RUNTIME_EVENTS);
      const ids = new Set(events.map((e) => e.event));
      t.diagnostic(`RUNTIME_EVENT ids ${[...ids].sort((a, b) => a - b).join(', ')}, ${events.length} records`);
      assert.ok(ids.has(RuntimeEventId.WorkerThreadStart) && ids.has(RuntimeEventId.Adjustment), 'worker starts and adjustments');
      assert.equal(rec.timeline(GC_EVENTS).filter((e) => isPoolEvent(e.event)).length, 0);
      assert.equal(ids.has(RuntimeEventId.WaitHandleWaitStart), runtime.waits, `WaitHandleWaitStart ${runtime.waits ? 'present' : 'absent'}`);
    });

    it(runtime.waits ? 'takes the blocked time from the runtime\'s own waits, within 10% of the wall samples\' estimate' : 'says the runtime raised no waits and keeps the wall samples\' estimate', (t) => {
      const w = report.starvation.runtimeWaits;
      t.diagnostic(`${w.note} unattributed ${w.unattributed} (${w.unattributedMs} ms)`);
      const top = report.blocking[0];
      if (!runtime.waits) {
        assert.equal(w.available, false);
        assert.equal(w.count, 0);
        assert.match(w.note, /^This runtime \(8\.\d+\.\d+\S*\) raises no WaitHandleWait events/);
        assert.ok(report.blocking.every((b) => b.from === 'wall samples' && b.waitMs === b.sampledMs));
        assert.ok(text.includes(w.note), 'the text report says so');
        return;
      }
      assert.equal(w.available, true);
      assert.match(w.note, /^Blocked time is the runtime's own: \d+ WaitHandleWait waits of pool threads/);
      assert.ok(text.includes(w.note), 'the text report says where the blocked time comes from');
      // Task.Wait blocks in Monitor.Wait (through ManualResetEventSlim): the runtime's MonitorWait.
      // A short wait of another source may fall in the site's time too (one Unknown did on .NET 9).
      assert.equal(top.from, 'runtime waits');
      assert.ok(top.waitSources.includes('MonitorWait'), top.waitSources.join(', '));
      // The runtime's waits come out below the samples' estimate: a sample's weight reaches back to
      // the thread's previous sample, and a woken thread still on the wait's frames until it runs
      // counts as waiting. Launched runs: 6-9% below here; attached ones went to 12% on this 2-core
      // machine under other builds' load, hence 15% for them.
      const bound = runtime.attach === true ? 0.15 : 0.1;
      assert.ok(Math.abs(w.waitMs - report.starvation.sampledBlockedMs) <= bound * report.starvation.sampledBlockedMs,
        `runtime waits ${w.waitMs} ms against the wall samples' ${report.starvation.sampledBlockedMs} ms`);
      // Task.Delay(300).Wait(): a MonitorWait lasts the 300 ms (the Unknown ones are the framework's short WaitHandle waits).
      const monitor = w.bySource.find((x) => x.source === 'MonitorWait');
      assert.ok(monitor !== undefined && monitor.count >= 100, `${monitor?.count ?? 0} MonitorWait waits`);
      const mean = monitor.waitMs / monitor.count;
      assert.ok(mean >= 250 && mean <= 400, `a MonitorWait lasted ${mean.toFixed(1)} ms on average`);
    });
  });
}

describe('a recording without an ASP.NET Core program has no pool story', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-pool-none-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says so in one sentence, text and json', async () => {
    const file = join(dir, 'plain.clrscope');
    const rec = await runCli(['record', '-o', file, '--', 'dotnet', join(ROOT, 'test', 'targets', 'Demo', 'bin', 'out', 'Demo.dll'), '--seconds', '2'], { timeoutMs: 60_000 });
    assert.equal(rec.code, 0, rec.stderr);
    const json = await runCli(['report', file, '--blocking', '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const r = JSON.parse(json.stdout) as Report;
    assert.equal(r.starvation.poolEvents, false);
    assert.equal(r.starvation.starved, false);
    assert.match(r.starvation.diagnosis, /^This recording has no thread-pool events/);
    const text = await runCli(['report', file, '--blocking']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^This recording has no thread-pool events[^\n]*\.\n/);
  });
});
