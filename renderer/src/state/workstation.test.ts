// The controller's own decisions: what a switch of session, a closed one, a reconnection mean for every room, and settings and the diff's baseline across them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settle } from './fake-timers.test-support.js';
import { session, setup, chunk } from './workstation.test-support.js';

describe('Workstation', () => {
  it('stops hearing a session it no longer shows, unless the diff compares with it', async () => {
    const { ws, api } = setup();
    api.emit({ type: 'session', session: session('a', 'stopped') });
    api.emit({ type: 'session', session: session('b', 'stopped') });
    ws.select('a');
    ws.select('b');
    await settle();
    assert.deepEqual(api.subscribed, ['a', 'b']);
    assert.deepEqual(api.unsubscribed, ['a']);
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'a' } });
    ws.select('a');
    await settle();
    assert.deepEqual(api.unsubscribed, ['a', 'b'], 'b is not shown any more; a is, twice');
    ws.select('b');
    await settle();
    assert.deepEqual(api.unsubscribed, ['a', 'b'], 'a stays heard: it is the baseline');
    ws.diff.setOptions({ baseline: null });
    await settle();
    assert.deepEqual(api.unsubscribed, ['a', 'b', 'a']);
  });

  it('a closed session leaves the list, the selection and the baseline, on every page', async () => {
    const { ws, api } = setup();
    api.emit({ type: 'session', session: session('a', 'stopped') });
    api.emit({ type: 'session', session: session('b', 'stopped') });
    ws.select('a');
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'b' } });
    await ws.sessions.closeSession('a');
    assert.deepEqual(api.closed, ['a']);
    assert.equal(ws.state.selectedSessionId, null);
    assert.deepEqual(ws.state.sessions.map((s) => s.id), ['b']);
    // Another page closed b: this one hears it as an event.
    api.emit({ type: 'session-closed', sessionId: 'b' });
    assert.equal(ws.state.sessions.length, 0);
    assert.equal(ws.state.diffOptions.baseline, null);
    api.closeSession = async () => { throw new Error('Session s9 is still recording: stop it before closing it.'); };
    api.emit({ type: 'session', session: session('s9', 'recording') });
    await ws.sessions.closeSession('s9');
    assert.equal(ws.state.error, 'Session s9 is still recording: stop it before closing it.');
    assert.deepEqual(ws.state.sessions.map((s) => s.id), ['s9']);
  });

  it('after a reconnect it resumes the shown streams from the bytes it holds and reloads the list', async () => {
    const { ws, api, worker } = setup();
    api.emit({ type: 'session', session: session('gone', 'stopped') });
    await ws.sessions.launchDemo();
    api.emit({ type: 'session', session: session('b1', 'stopped') });
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'b1' } });
    api.emit(chunk('s1', 0, 1, 2, 3));
    api.emit(chunk('b1', 0, 5, 5));
    api.listSessions = async () => [session('s1', 'stopped'), session('b1', 'stopped')];
    api.reconnected();
    await settle();
    assert.deepEqual(api.subscribed, ['s1', 'b1', 's1@3', 'b1@2']);
    assert.equal(worker.queries('reset'), 1, 'nothing thrown away');
    api.emit(chunk('s1', 3, 4));
    assert.equal(ws.state.streamBytes, 4);
    assert.deepEqual(ws.state.sessions.map((s) => `${s.id} ${s.state}`), ['s1 stopped', 'b1 stopped'], 'gone was closed while away; s1 stopped');
  });

  it('loads the saved folding, sends it with every query, saves a change, and routes a baseline session\'s stream beside the session\'s', async () => {
    const { ws, api, worker, timers } = setup();
    await settle();
    assert.equal(ws.state.fold.myCode, true, 'the saved folding');
    await ws.sessions.launchDemo();
    await timers.advance(0);
    await settle();
    const flame = worker.received.filter((m) => m.kind === 'flame').pop();
    assert.ok(flame?.kind === 'flame' && flame.query.fold?.myCode === true);
    ws.view.setFold({ ...ws.state.fold, myCode: false, groupBy: 'namespace' });
    await timers.advance(0);
    await settle();
    assert.deepEqual(api.saved.map((x) => [x.fold.myCode, x.fold.groupBy]), [[false, 'namespace']]);
    const next = worker.received.filter((m) => m.kind === 'flame').pop();
    assert.ok(next?.kind === 'flame' && next.query.fold?.groupBy === 'namespace');
    ws.view.setTab('functions');
    ws.view.selectFunction('App.Main');
    await timers.advance(0);
    await settle();
    const functions = worker.received.filter((m) => m.kind === 'functions').pop();
    const sandwich = worker.received.filter((m) => m.kind === 'sandwich').pop();
    assert.ok(functions?.kind === 'functions' && functions.query.fold.groupBy === 'namespace' && functions.query.metric === 'cpu');
    assert.ok(sandwich?.kind === 'sandwich' && sandwich.name === 'App.Main');
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'b1' } });
    assert.deepEqual(api.subscribed, ['s1', 'b1']);
    assert.equal(worker.queries('baseline-reset'), 1);
    api.emit(chunk('b1', 0, 5, 6));
    api.emit(chunk('b1', 0, 5, 6));
    api.emit(chunk('s1', 0, 1));
    const baseline = worker.received.filter((m) => m.kind === 'baseline-chunk').map((m) => (m.kind === 'baseline-chunk' ? [m.offset, ...m.bytes] : []));
    assert.deepEqual(baseline, [[0, 5, 6]], 'the baseline\'s bytes once, apart from the session\'s');
    assert.deepEqual(worker.received.filter((m) => m.kind === 'chunk').map((m) => (m.kind === 'chunk' ? [m.offset, ...m.bytes] : [])), [[0, 1]]);
  });
});
