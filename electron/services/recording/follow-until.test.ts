import { test } from 'node:test';
import assert from 'node:assert/strict';
import { followUntil } from './follow-until.js';

const never = new Promise<void>(() => undefined);

test('the session ending first, the duration, an interrupt: each says so', async () => {
  assert.equal(await followUntil(Promise.resolve(), { durationMs: 10000 }), 'ended');
  assert.equal(await followUntil(never, { durationMs: 5 }), 'duration');
  const abort = new AbortController();
  const following = followUntil(never, { durationMs: 10000, signal: abort.signal });
  abort.abort();
  assert.equal(await following, 'interrupted');
});

test('an interrupt that came before following began stops it at once', async () => {
  const abort = new AbortController();
  abort.abort();
  assert.equal(await followUntil(never, { signal: abort.signal }), 'interrupted');
});

test('no listener stays on the signal once following is over', async () => {
  const abort = new AbortController();
  let listeners = 0;
  const signal = abort.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => { listeners++; add(...args); }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => { listeners--; remove(...args); }) as typeof signal.removeEventListener;
  for (let i = 0; i < 3; i++) assert.equal(await followUntil(Promise.resolve(), { signal, durationMs: 1 }), 'ended');
  assert.equal(listeners, 0);
});
