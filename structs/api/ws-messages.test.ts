import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeStreamFrame, encodeStreamFrame } from './ws-messages.js';

test('a stream frame carries the session, the offset and the bytes, byte for byte', () => {
  const frame = encodeStreamFrame('s1', 1024, new Uint8Array([9, 8, 7]));
  assert.deepEqual(Array.from(frame), [1, 2, 0, 0x73, 0x31, 0, 0, 0, 0, 0, 0, 0x90, 0x40, 9, 8, 7]);
  const e = decodeStreamFrame(frame);
  assert.equal(e.sessionId, 's1');
  assert.equal(e.offset, 1024);
  assert.deepEqual(Array.from(e.chunk), [9, 8, 7]);
});

test('anything else is refused with a sentence', () => {
  assert.throws(() => decodeStreamFrame(new Uint8Array([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), /Not a clrscope stream frame/);
  assert.throws(() => decodeStreamFrame(new Uint8Array([1, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0])), /ended inside its header/);
});
