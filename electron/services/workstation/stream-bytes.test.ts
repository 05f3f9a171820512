import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkstationEvent } from '../../../structs/api/contract.js';
import { EventHub } from './event-hub.js';
import { StreamBytes } from './stream-bytes.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

test('stored chunks are tight copies with running offsets', () => {
  const store = new StreamBytes();
  const pool = new Uint8Array(100).fill(7);
  const a = store.append(pool.subarray(10, 13));
  const b = store.append(bytes(1, 2));
  assert.deepEqual(a, { offset: 0, chunk: bytes(7, 7, 7) });
  assert.equal(a.chunk.buffer.byteLength, 3, 'its own buffer: Electron IPC clones whole buffers');
  assert.deepEqual(b, { offset: 3, chunk: bytes(1, 2) });
  pool.fill(0);
  assert.deepEqual(a.chunk, bytes(7, 7, 7), 'a copy, not a view of the socket\'s buffer');
  assert.equal(store.length, 5);
});

test('replay joins chunks up to a size and keeps every byte in order', () => {
  const store = new StreamBytes();
  for (let i = 0; i < 10; i++) store.append(bytes(i, i));
  store.append(new Uint8Array(9).fill(99));
  store.append(bytes(50));
  const replayed = [...store.replay(5)];
  assert.deepEqual(replayed.map((r) => [r.offset, r.chunk.length]), [[0, 4], [4, 4], [8, 4], [12, 4], [16, 4], [20, 9], [29, 1]]);
  const all = Uint8Array.from(replayed.flatMap((r) => Array.from(r.chunk)));
  assert.deepEqual(all.subarray(0, 6), bytes(0, 0, 1, 1, 2, 2));
  assert.equal(all.length, 30);
  assert.deepEqual([...new StreamBytes().replay()], []);
});

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
