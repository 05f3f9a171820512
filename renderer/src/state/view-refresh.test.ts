// What the visible view asks the worker, and when (view-refresh.ts, refresh-scheduler.ts), driven through the controller.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settle } from './fake-timers.test-support.js';
import { REFRESH_PERIOD_MS } from './workstation.js';
import { session, setup, chunk } from './workstation.test-support.js';

describe('Workstation: view refresh', () => {
  it('re-queries at least twice a second while data arrives and stops when it stops', async () => {
    const { ws, api, worker, timers } = setup();
    await ws.sessions.launchDemo();
    await timers.advance(0);
    const before = worker.queries('flame');
    let offset = 0;
    for (let t = 0; t < 2000; t += 50) {
      api.emit(chunk('s1', offset, 7));
      offset++;
      await timers.advance(50);
    }
    const during = worker.queries('flame') - before;
    assert.ok(during >= 4 && during <= 2000 / REFRESH_PERIOD_MS + 1, `${during} flame queries in 2 s`);
    assert.ok(ws.state.flame !== null && ws.state.summary !== null);
    api.emit({ type: 'session', session: session('s1', 'stopped') });
    await timers.advance(1000);
    const afterStop = worker.queries('flame');
    await timers.advance(5000);
    assert.equal(worker.queries('flame'), afterStop, 'no queries once the recording stopped');
    // Still interactive: a user change queries again.
    ws.view.setFlameOptions({ metric: 'wall' });
    await timers.advance(0);
    await settle();
    assert.equal(worker.queries('flame'), afterStop + 1);
  });

  it('the type and exceptions tables: asked with the flame graph\'s window and threads; a picked type focuses the flame graph on it', async () => {
    const { ws, worker, timers } = setup();
    await ws.sessions.launchDemo();
    ws.view.setFlameOptions({ threadIds: [7], window: { kind: 'range', fromMs: 10, toMs: 20 } });
    ws.view.setTab('types');
    await timers.advance(0);
    await settle();
    const asked = worker.received.filter((m) => m.kind === 'event-tables');
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].kind === 'event-tables' ? asked[0].query : null, { threadIds: [7], fromMs: 10, toMs: 20 });
    assert.equal(ws.state.eventTables?.types.rows[0].type, 'System.Byte[]');
    assert.equal(worker.queries('functions'), 0, 'no functions table for the types tab');
    // A type: allocations in the flame graph, of that type only.
    ws.view.focusEventType('alloc-space', 'System.Byte[]', ['alloc-space', 'alloc-objects']);
    assert.equal(ws.state.flameOptions.metric, 'alloc-space');
    assert.equal(ws.state.flameOptions.eventType, 'System.Byte[]');
    ws.view.setTab('flame');
    await timers.advance(0);
    await settle();
    const flames = worker.received.filter((m) => m.kind === 'flame');
    const last = flames[flames.length - 1];
    assert.equal(last.kind === 'flame' ? last.query.eventType : null, 'System.Byte[]');
    // Objects stay objects when another type is picked; another event type clears the focus.
    ws.view.setFlameOptions({ metric: 'alloc-objects', eventType: 'System.Byte[]' });
    ws.view.focusEventType('alloc-space', 'App.Pair', ['alloc-space', 'alloc-objects']);
    assert.equal(ws.state.flameOptions.metric, 'alloc-objects');
    ws.view.setFlameOptions({ metric: 'exceptions' });
    assert.equal(ws.state.flameOptions.eventType, null);
    // CPU ignores a focus.
    ws.view.setFlameOptions({ metric: 'cpu', eventType: 'System.Byte[]' });
    await timers.advance(0);
    await settle();
    const cpu = worker.received.filter((m) => m.kind === 'flame').pop();
    assert.equal(cpu?.kind === 'flame' ? cpu.query.eventType : 'x', undefined);
  });
});
