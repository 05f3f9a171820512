import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCollapsed } from './to-collapsed.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { Recording } from '../../profile/recording.js';

const rec = recordingFromStream([fixtureStream()]);

test('cpu: equal stacks summed, wall-only samples left out, root first, sorted', () => {
  assert.equal(toCollapsed(rec, { metric: 'cpu' }), [
    'App.Program.Main;App.Worker.Work;App.Worker.Hot 35',
    'App.Program.Main;a_b 1',
    '[incomplete stack];App.Worker.Work;App.Worker.Recurse;App.Worker.Recurse 4',
    'libc.so.6!start_thread;[libcoreclr.so] 7',
    '',
  ].join('\n'));
});

test('wall and sample counts', () => {
  assert.equal(toCollapsed(rec, { metric: 'wall' }), [
    'App.Program.Main;App.Worker.Work;App.Worker.Hot 50',
    'App.Program.Main;App.Worker.Work;libc.so.6!futex_wait 100',
    '[incomplete stack] 30',
    '',
  ].join('\n'));
  assert.equal(toCollapsed(rec, { metric: 'samples' }), [
    'App.Program.Main;App.Worker.Work;App.Worker.Hot 3',
    'App.Program.Main;App.Worker.Work;libc.so.6!futex_wait 1',
    'App.Program.Main;a_b 1',
    '[incomplete stack] 1',
    '[incomplete stack];App.Worker.Work;App.Worker.Recurse;App.Worker.Recurse 1',
    'libc.so.6!start_thread;[libcoreclr.so] 1',
    '',
  ].join('\n'));
});

test('groupByThread prefixes the thread name; same-named threads merge; unnamed ones show their tid', () => {
  assert.equal(toCollapsed(rec, { metric: 'cpu', groupByThread: true }), [
    'main;App.Program.Main;App.Worker.Work;App.Worker.Hot 35',
    'main;App.Program.Main;a_b 1',
    'main;[incomplete stack];App.Worker.Work;App.Worker.Recurse;App.Worker.Recurse 4',
    'thread 200;libc.so.6!start_thread;[libcoreclr.so] 7',
    '',
  ].join('\n'));
  assert.equal(toCollapsed(rec, { metric: 'wall', groupByThread: true }), [
    'main;App.Program.Main;App.Worker.Work;App.Worker.Hot 50',
    'thread 200;App.Program.Main;App.Worker.Work;libc.so.6!futex_wait 100',
    'thread 200;[incomplete stack] 30',
    '',
  ].join('\n'));
});

test('an empty recording is empty text', () => {
  assert.equal(toCollapsed(new Recording(), { metric: 'cpu' }), '');
});
