import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventClientData, eventEnvironment, type EventSwitches } from './profiler-env.js';

const base: EventSwitches = { exceptions: true, locks: true, alloc: false };

test('the requests\' rate budget goes to a launched profiler as CLRSCOPE_REQUESTS_RATE and to an attached one as requests_rate=', () => {
  assert.deepEqual(eventEnvironment({ ...base, requests: true, requestsRate: 166 }), { CLRSCOPE_EXCEPTIONS: '1', CLRSCOPE_LOCKS: '1', CLRSCOPE_ALLOC: '0', CLRSCOPE_REQUESTS: '1', CLRSCOPE_REQUESTS_RATE: '166' });
  assert.equal(eventEnvironment({ ...base, requests: true, requestsRate: 'all' }).CLRSCOPE_REQUESTS_RATE, 'all');
  assert.equal(eventClientData({ ...base, requests: true, requestsRate: 166 }), 'exceptions=1\nlocks=1\nalloc=0\nrequests=1\nrequests_rate=166\n');
  assert.equal(eventClientData({ ...base, requests: true, requestsRate: 'all' }), 'exceptions=1\nlocks=1\nalloc=0\nrequests=1\nrequests_rate=all\n');
});

test('without a rate, or without requests, neither says one: the profiler keeps its default budget', () => {
  for (const s of [{ ...base, requests: true }, { ...base, requestsRate: 50 as const }, { ...base, requests: false, requestsRate: 'all' as const }]) {
    assert.equal('CLRSCOPE_REQUESTS_RATE' in eventEnvironment(s), false, JSON.stringify(s));
    assert.doesNotMatch(eventClientData(s), /requests_rate/, JSON.stringify(s));
  }
  assert.equal(eventClientData({ ...base, requests: true }), 'exceptions=1\nlocks=1\nalloc=0\nrequests=1\n');
});
