// One consistent copy of a live block: the header's counter is a sequence lock (odd while the
// writer is inside, changed after it leaves), so a copy taken between two equal even readings
// is a snapshot no writer touched.

import { IpcBlockError } from './ipc-block-error.js';
import { IPC_BLOCK_SIZE } from './layout.js';

/** Copies the block into `into` (IPC_BLOCK_SIZE bytes) and returns the sequence value it was consistent at. */
export function readConsistent(live: Uint8Array, into: Uint8Array, maxTries = 1000): number {
  const view = new DataView(live.buffer, live.byteOffset, IPC_BLOCK_SIZE);
  const source = live.subarray(0, IPC_BLOCK_SIZE);
  for (let i = 0; i < maxTries; i++) {
    const before = view.getInt32(0, true);
    if ((before & 1) !== 0) continue;
    into.set(source);
    if (view.getInt32(0, true) === before) return before;
  }
  throw new IpcBlockError('unsettled', `The counters block was being written during all ${maxTries} attempts to read it.`);
}
