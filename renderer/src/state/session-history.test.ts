// Counters and program output of the shown session (session-history.ts), driven through the controller.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { FakeTimers, settle } from './fake-timers.test-support.js';
import { OUTPUT_REFRESH_MS, Workstation } from './workstation.js';
import { session, FakeWorker, FakeApi, setup, outLine, output } from './workstation.test-support.js';

describe('Workstation: session history', () => {
  it('merges a session\'s counters history with the points heard live, once per time', async () => {
    const { ws, api } = setup();
    const point = (timeMs: number, gen0: number): CountersPoint => ({ timeMs, values: { gc: { genCollections0: gen0 } } });
    api.history.s1 = [point(1000, 1), point(1250, 2), point(1500, 3)];
    // A live point that came before the history's answer, and one the history holds too.
    api.emit({ type: 'counters', sessionId: 's1', point: point(1500, 3) });
    api.emit({ type: 'counters', sessionId: 's1', point: point(1750, 4) });
    await ws.sessions.launchDemo();
    await settle();
    assert.deepEqual(ws.counters.points('s1').map((p) => p.timeMs), [1000, 1250, 1500, 1750]);
    api.emit({ type: 'counters', sessionId: 's1', point: point(2000, 5) });
    assert.deepEqual(ws.counters.points('s1').map((p) => p.values.gc.genCollections0), [1, 2, 3, 4, 5]);
  });

  it('merges a session\'s output history with the lines heard while it was asked for, each line once', async () => {
    const { ws, api, timers } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    api.outputHistory = async () => {
      await gate;
      return { lines: [outLine(0), outLine(1, 'stderr'), outLine(2), outLine(3)], droppedLines: 0, partial: { stdout: 'Cont', stderr: '' } };
    };
    await ws.sessions.launchDemo();
    // Heard while the history is in flight: line 3 is in both, and one event comes twice.
    api.emit(output('s1', [3, 4], 'Continue?'));
    api.emit(output('s1', [3, 4], 'Continue?'));
    assert.equal(ws.output.get('s1').loaded, false);
    assert.equal(ws.output.get('s1').droppedLines, 0, 'lines before the first heard are not "dropped" before the history says so');
    release();
    await settle();
    const shown = ws.output.get('s1');
    assert.deepEqual(shown.lines.map((l) => `${l.seq} ${l.text}`), ['0 stdout 0', '1 stderr 1', '2 stdout 2', '3 stdout 3', '4 stdout 4']);
    assert.equal(shown.partial.stdout, 'Continue?', 'the unfinished line heard after the history\'s last line is the newer');
    assert.equal(shown.loaded, true);
    assert.equal(shown.droppedLines, 0);
    api.emit(output('s1', [5]));
    api.emit(output('s1', [4, 5, 6]));
    assert.deepEqual(ws.output.get('s1').lines.map((l) => l.seq), [0, 1, 2, 3, 4, 5, 6]);
    assert.equal(ws.output.get('s1').partial.stdout, '');
    // Another session's lines are kept for it, not shown here.
    api.emit(output('s9', [0]));
    assert.equal(ws.output.get('s1').lines.length, 7);
    assert.equal(ws.output.get('s9').lines.length, 1);

    const version = ws.state.outputVersion;
    for (let i = 7; i < 50; i++) api.emit(output('s1', [i]));
    assert.equal(ws.state.outputVersion, version, 'not on every event');
    await timers.advance(OUTPUT_REFRESH_MS);
    assert.equal(ws.state.outputVersion, version + 1, 'once per OUTPUT_REFRESH_MS');
    api.emit(output('s9', [1]));
    await timers.advance(OUTPUT_REFRESH_MS);
    assert.equal(ws.state.outputVersion, version + 1, 'another session\'s lines do not redraw this one');
  });

  it('says how many earlier lines are gone, and that an attached process has no output', async () => {
    const { ws, api } = setup();
    api.output.s1 = { lines: [outLine(8000), outLine(8001)], droppedLines: 8000, partial: { stdout: '', stderr: '' } };
    await ws.sessions.launchDemo();
    await settle();
    assert.equal(ws.output.get('s1').droppedLines, 8000);
    const attached = new FakeApi();
    attached.attach = async () => ({ ...session('a1', 'recording'), attached: true, source: 'attach' });
    const w = new Workstation({ api: attached, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    w.start();
    await w.sessions.attach({ pid: 42 });
    await settle();
    assert.deepEqual(w.output.get('a1'), { lines: [], partial: { stdout: '', stderr: '' }, droppedLines: 0, loaded: true });
    assert.deepEqual(w.output.get(null).lines, []);
  });
});
