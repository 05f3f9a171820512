import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { fixtureStream } from '../profile/fixture-stream.test-support.js';
import { INCOMPLETE_STACK_FUNCTION_ID } from '../profile/recording.js';
import { LabelTable, ROOT_LABEL, THREAD_KIND } from './label-table.js';

const rec = recordingFromStream([fixtureStream()]);

test('functions map to their frame labels; equal texts share one label; threads get kind 3', () => {
  const labels = new LabelTable(rec);
  const hot = labels.ofFunction(3);
  assert.equal(labels.names[hot], 'App.Worker.Hot');
  assert.equal(labels.ofFunction(3), hot);
  assert.equal(labels.names[labels.ofFunction(5)], '[libcoreclr.so]');
  assert.equal(labels.names[labels.ofFunction(INCOMPLETE_STACK_FUNCTION_ID)], '[incomplete stack]');
  assert.equal(labels.names[labels.ofFunction(999)], '[function 999]');
  const main1 = labels.ofThread(1);
  assert.equal(labels.ofThread(3), main1, 'threads 1 and 3 are both named main');
  assert.equal(labels.kinds[main1], THREAD_KIND);
  assert.equal(labels.names[labels.ofThread(2)], 'thread 200');
  assert.equal(labels.names[ROOT_LABEL], 'all');
});

test('rank orders labels by name then kind, and stays right as labels are added one by one', () => {
  const labels = new LabelTable(rec);
  const check = (): void => {
    const rank = labels.rank();
    const byRank = Array.from({ length: labels.count }, (_, r) => labels.labelAtRank(r));
    for (let r = 1; r < byRank.length; r++) {
      const a = byRank[r - 1];
      const b = byRank[r];
      assert.ok(labels.names[a] < labels.names[b] || (labels.names[a] === labels.names[b] && labels.kinds[a] <= labels.kinds[b]));
    }
    byRank.forEach((l, r) => assert.equal(rank[l], r));
  };
  for (const id of [8, 1, 2, 3, 4, 5, 6, 7]) {
    labels.ofFunction(id);
    check();
  }
  labels.ofThread(1);
  labels.ofThread(2);
  check();
});
