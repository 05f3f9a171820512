import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionInfo } from '../../../structs/api/contract.js';
import { sessionTitle } from './session-title.js';

const info = (label: string, pid: number | null): SessionInfo => ({
  id: 's1', pid, label, state: 'recording', startedAtMs: 0, intervalMs: 10, attached: true, source: 'attach', approximateCpu: false, exitCode: null, message: null,
});

test('the pid appears once in a session title, whatever the label already says', () => {
  assert.equal(sessionTitle(info('WebApp', 18600)), 'WebApp (pid 18600)');
  assert.equal(sessionTitle(info('WebApp (pid 18600)', 18600)), 'WebApp (pid 18600)');
  assert.equal(sessionTitle(info('pid 18600', 18600)), 'pid 18600');
  assert.equal(sessionTitle(info('trace.nettrace', null)), 'trace.nettrace');
  // Another pid in the label (the program restarted under a host) is not this one.
  assert.equal(sessionTitle(info('Host (pid 1)', 2)), 'Host (pid 1) (pid 2)');
});
