import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC } from '../../../structs/api/contract.js';
import { asyncAutoChoice, requestedEvents } from './recording-switches.js';

test("Attach's auto async stacks: on below the limit, off at it and above, off when the rate is unknown, each said", () => {
  const low = asyncAutoChoice(123.4);
  assert.equal(low.async, true);
  assert.equal(low.note, "Async call stacks are on (from the runtime's events): the process completed 123 thread-pool work items a second before the attach, fewer than 2,000.");
  assert.equal(asyncAutoChoice(ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC - 0.5).async, true);
  const high = asyncAutoChoice(ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC);
  assert.equal(high.async, false);
  assert.match(high.note, /^Async call stacks are off: the process completed 2,000 thread-pool work items a second before the attach, where following its awaits would cost it more than 3%/);
  const unknown = asyncAutoChoice(undefined);
  assert.equal(unknown.async, false);
  assert.match(unknown.note, /could not be read before the attach/);
});

test('the event switches a request asks for: the profiler defaults where it says nothing, a source only with async on', () => {
  assert.deepEqual(requestedEvents({ pid: 1 }), { exceptions: true, locks: true, alloc: false, async: false });
  assert.deepEqual(requestedEvents({ pid: 1, async: true, asyncSource: 'heap', alloc: true }), { exceptions: true, locks: true, alloc: true, async: true, asyncSource: 'heap' });
  assert.deepEqual(requestedEvents({ pid: 1, asyncSource: 'heap' }), { exceptions: true, locks: true, alloc: false, async: false });
});
