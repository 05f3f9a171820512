import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkstationEvent } from '../../../structs/api/contract.js';
import { EventHub } from './event-hub.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

test('the hub sends stream events only to subscribed clients, everything else to all', () => {
  const hub = new EventHub();
  const a = hub.client();
  const b = hub.client();
  const seenA: WorkstationEvent[] = [];
  const seenB: WorkstationEvent[] = [];
  const offA = a.onEvent((e) => seenA.push(e));
  b.onEvent((e) => seenB.push(e));
  b.onEvent(() => { throw new Error('a broken listener'); });
  a.subscribe('s1');
  const original = console.error;
  console.error = () => undefined;
  try {
    hub.stream({ type: 'stream', sessionId: 's1', offset: 0, chunk: bytes(1) });
    hub.stream({ type: 'stream', sessionId: 's2', offset: 0, chunk: bytes(2) });
    hub.broadcast({ type: 'export-progress', sessionId: 's2', done: 1, total: 2 });
  } finally {
    console.error = original;
  }
  assert.deepEqual(seenA.map((e) => e.type), ['stream', 'export-progress']);
  assert.deepEqual(seenB.map((e) => e.type), ['export-progress'], 'a failing listener does not stop the others');
  offA();
  b.close();
  hub.broadcast({ type: 'export-progress', sessionId: 's2', done: 2, total: 2 });
  assert.equal(seenA.length, 2);
  assert.equal(seenB.length, 1);
});

test('a replay ticket stays current until a newer replay, an unsubscribe, a subscribe or close', () => {
  const hub = new EventHub();
  const a = hub.client();
  const first = a.beginReplay('s1');
  assert.equal(a.replayCurrent('s1', first), true);
  const second = a.beginReplay('s1');
  assert.equal(a.replayCurrent('s1', first), false, 'a newer subscribe ends the older replay');
  assert.equal(a.replayCurrent('s1', second), true);
  a.unsubscribe('s1');
  assert.equal(a.replayCurrent('s1', second), false);
  a.subscribe('s1');
  assert.equal(a.isSubscribed('s1'), true);
  a.beginReplay('s1');
  assert.equal(a.isSubscribed('s1'), false, 'no live chunks while a replay runs: it subscribes when caught up');
  const third = a.beginReplay('s2');
  a.subscribe('s2');
  hub.forget('s2');
  assert.equal(a.isSubscribed('s2'), false, 'a closed session is forgotten by every client');
  assert.equal(a.replayCurrent('s2', third), false);
  const fourth = a.beginReplay('s3');
  a.close();
  assert.equal(a.replayCurrent('s3', fourth), false);
});
