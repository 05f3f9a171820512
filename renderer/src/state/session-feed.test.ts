// The selected session's stream into the worker (session-feed.ts), driven through the controller as the views drive it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settle } from './fake-timers.test-support.js';
import { session, setup, chunk } from './workstation.test-support.js';

describe('Workstation: session feed', () => {
  it('a kept window goes to the worker with the session; changing it feeds the worker again from byte 0 and trims the counters', async () => {
    const { ws, api, worker } = setup();
    api.launch = async () => ({ ...session('s1', 'recording'), keepMinutes: 10 });
    await ws.sessions.launch({ command: 'dotnet', args: ['app.dll'], keepMinutes: 10 });
    const resets = () => worker.received.filter((m) => m.kind === 'reset').map((m) => (m.kind === 'reset' ? m.keepMinutes ?? null : 'x'));
    assert.deepEqual(resets(), [10]);
    api.emit(chunk('s1', 0, 1, 2, 3));
    for (let m = 0; m < 20; m++) api.emit({ type: 'counters', sessionId: 's1', point: { timeMs: 1_000_000 + m * 60_000, values: {} } });
    assert.equal(ws.counters.points('s1').length, 11);
    await ws.sessions.setKeepWindow(null);
    assert.deepEqual(api.keepWindows, [{ sessionId: 's1', keepMinutes: null }]);
    assert.deepEqual(resets(), [10, null]);
    assert.deepEqual(api.subscribed, ['s1', 's1']);
    assert.equal(ws.state.streamBytes, 0);
    // Another page changed it: this one hears the session and reads the stream again too.
    api.emit({ type: 'session', session: { ...session('s1', 'recording'), keepMinutes: 5 } });
    assert.deepEqual(resets(), [10, null, 5]);
    assert.deepEqual(api.subscribed, ['s1', 's1', 's1']);
    api.emit({ type: 'counters', sessionId: 's1', point: { timeMs: 1_000_000 + 20 * 60_000, values: {} } });
    assert.equal(ws.counters.points('s1').length, 6);
    // The same window again changes nothing.
    api.emit({ type: 'session', session: { ...session('s1', 'stopped'), keepMinutes: 5 } });
    assert.deepEqual(resets(), [10, null, 5]);
  });

  it('launches, subscribes and hands the stream to the worker in order, once', async () => {
    const { ws, api, worker } = setup();
    await ws.sessions.launchDemo();
    assert.deepEqual(api.subscribed, ['s1']);
    assert.equal(ws.state.tab, 'flame');
    api.emit(chunk('s1', 0, 1, 2, 3));
    api.emit(chunk('s1', 0, 1, 2, 3));
    api.emit(chunk('s1', 2, 3, 4));
    api.emit(chunk('other', 0, 9));
    const chunks = worker.received.filter((m) => m.kind === 'chunk').map((m) => (m.kind === 'chunk' ? [m.offset, ...m.bytes] : []));
    assert.deepEqual(chunks, [[0, 1, 2, 3], [3, 4]]);
    assert.equal(ws.state.streamBytes, 4);
  });

  it('resubscribes from byte 0 when bytes went missing', async () => {
    const { ws, api, worker } = setup();
    await ws.sessions.launchDemo();
    api.emit(chunk('s1', 0, 1));
    api.emit(chunk('s1', 5, 6));
    await settle();
    assert.deepEqual(api.subscribed, ['s1', 's1']);
    assert.equal(worker.queries('reset'), 2);
    assert.equal(ws.state.streamBytes, 0);
  });
});
