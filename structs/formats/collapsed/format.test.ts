import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { formatOfPath, recordingFormat } from '../registry.js';
import { streamFromCollapsed } from './collapsed-stream.js';
import { toCollapsed } from './to-collapsed.js';

const rec = recordingFromStream([fixtureStream({ end: true })]);

function written(metric?: 'cpu' | 'wall'): string {
  const writer = recordingFormat('collapsed').writer;
  assert.equal(typeof writer, 'function');
  if (typeof writer !== 'function') return '';
  return Array.from(writer(rec, { counters: [], metric, gzip: () => { throw new Error('collapsed stacks are not gzipped'); } })).join('');
}

test('.collapsed and .folded files are collapsed stacks by thread, CPU unless wall is asked for', () => {
  assert.equal(formatOfPath('app.collapsed', 'write'), 'collapsed');
  assert.equal(formatOfPath('app.FOLDED', 'write'), 'collapsed');
  assert.equal(formatOfPath('app.collapsed', 'read'), undefined, 'written only');
  assert.equal(written(), toCollapsed(rec, { metric: 'cpu', groupByThread: true }));
  assert.equal(written('wall'), toCollapsed(rec, { metric: 'wall', groupByThread: true }));
  assert.match(written(), /^\S.*;.* \d+\n/);
});

test('what it writes reads back as the same stacks and CPU time', () => {
  const back = recordingFromStream([streamFromCollapsed(written(), { end: true })]);
  assert.equal(toCollapsed(back, { metric: 'cpu', groupByThread: true }), written());
});
