// One consistent copy of a live block: the header's counter is a sequence lock (odd while the
// writer is inside, changed after it leaves), so a copy taken between two equal even readings
// is a snapshot no writer touched. The block is read through an accessor (block-memory.ts): a
// live view or a native copy per read; either way each reading of the counter is a fresh read
// of the shared memory, made before and after the copy.

import { type BlockMemory, checkDestination } from './block-memory.js';
import { IpcBlockError } from './ipc-block-error.js';
import { IPC_BLOCK_SIZE } from './layout.js';

/** Copies the block into `into` (IPC_BLOCK_SIZE bytes) and returns the sequence value it was consistent at. */
export function readConsistent(live: BlockMemory, into: Uint8Array, maxTries = 1000): number {
  if (live.size < IPC_BLOCK_SIZE) throw new RangeError(`the block has ${live.size} bytes, fewer than a block's ${IPC_BLOCK_SIZE}`);
  checkDestination(into, IPC_BLOCK_SIZE);
  for (let i = 0; i < maxTries; i++) {
    const before = live.readInt32(0);
    if ((before & 1) !== 0) continue;
    live.read(into, 0, IPC_BLOCK_SIZE);
    if (live.readInt32(0) === before) return before;
  }
  throw new IpcBlockError('unsettled', `The counters block was being written during all ${maxTries} attempts to read it.`);
}
