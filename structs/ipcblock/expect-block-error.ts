// For the counters-block tests: every reader error must be one IpcBlockError of the right kind
// whose message is one sentence, so each test file checks it the same way.

import assert from 'node:assert/strict';
import { IpcBlockError } from './ipc-block-error.js';

/** Runs `fn`, which must throw an IpcBlockError of `kind` whose message is one sentence; returns the message. */
export function blockError(fn: () => unknown, kind: IpcBlockError['kind']): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof IpcBlockError, `expected an IpcBlockError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    assert.ok(e.message.endsWith('.') && !e.message.includes('\n') && !/\.\s+[A-Z]/.test(e.message), `one sentence: ${e.message}`);
    return e.message;
  }
  assert.fail(`expected an IpcBlockError (${kind})`);
}
