import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeTimers, settle } from './fake-timers.test-support.js';
import { RefreshScheduler } from './refresh-scheduler.js';

describe('RefreshScheduler', () => {
  it('refreshes at most once per period however much data arrives', async () => {
    const timers = new FakeTimers();
    const runs: number[] = [];
    const s = new RefreshScheduler(async () => { runs.push(timers.now()); }, 400, timers);
    for (let t = 0; t < 2000; t += 20) {
      s.dataChanged();
      await timers.advance(20);
    }
    assert.ok(runs.length >= 5 && runs.length <= 6, `${runs.length} runs`);
    for (let i = 1; i < runs.length; i++) assert.ok(runs[i] - runs[i - 1] >= 400);
  });

  it('does nothing without data or a user change (a stopped recording is not re-queried)', async () => {
    const timers = new FakeTimers();
    let runs = 0;
    const s = new RefreshScheduler(async () => { runs++; }, 400, timers);
    s.dataChanged();
    await timers.advance(5000);
    assert.equal(runs, 1);
  });

  it('answers a user change at once and never runs two queries together', async () => {
    const timers = new FakeTimers();
    let running = 0;
    let overlap = false;
    let release: (() => void) | undefined;
    let runs = 0;
    const s = new RefreshScheduler(() => {
      runs++;
      running++;
      if (running > 1) overlap = true;
      return new Promise<void>((r) => { release = () => { running--; r(); }; });
    }, 400, timers);
    s.now();
    await timers.advance(0);
    assert.equal(runs, 1);
    s.now();
    await timers.advance(0);
    assert.equal(runs, 1, 'waits for the running query');
    release?.();
    await settle();
    await timers.advance(0);
    assert.equal(runs, 2, 'then runs again at once');
    assert.equal(overlap, false);
  });
});
