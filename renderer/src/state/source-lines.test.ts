// Source lines and the Source view's file (source-lines.ts), driven through the controller.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settle } from './fake-timers.test-support.js';
import { REFRESH_PERIOD_MS } from './workstation.js';
import { session, setup, chunk } from './workstation.test-support.js';

describe('Workstation: source lines', () => {
  it('Source: the function\'s lines from the worker, its file asked once; a stopped session\'s lines asked again while its bytes arrive', async () => {
    const { ws, api, worker, timers } = setup();
    api.emit({ type: 'session', session: session('f', 'stopped') });
    ws.select('f');
    ws.view.setTab('flame');
    await timers.advance(0);
    await settle();
    const asked = api.linesAsked;
    assert.ok(asked >= 1);
    await timers.advance(1000);
    await settle();
    assert.equal(api.linesAsked, asked, 'nothing new: not asked again');
    api.emit(chunk('f', 0, 1, 2));
    await timers.advance(REFRESH_PERIOD_MS);
    await settle();
    assert.equal(api.linesAsked, asked + 1, 'asked again once more bytes came');
    assert.equal(ws.state.sources.get('App.Hot'), '/src/App.cs:12');

    ws.sources.showSource('App.Hot');
    assert.equal(ws.state.tab, 'source');
    assert.equal(ws.state.selectedFunction, 'App.Hot');
    await timers.advance(0);
    await settle();
    assert.equal(ws.state.functionLines?.lines[0].line, 12);
    assert.deepEqual(api.filesAsked, [{ sessionId: 'f', path: '/src/App.cs', methods: [{ moduleId: 1, token: 0x06000002 }] }]);
    assert.equal(ws.state.sourceFile?.text?.split('\n').length, 3);
    // Refreshes ask the worker again (the window may change), the file only once.
    ws.view.setFlameOptions({ metric: 'wall' });
    await timers.advance(0);
    await settle();
    assert.equal(worker.queries('function-lines'), 2);
    assert.equal(api.filesAsked.length, 1);
  });
});
