// A live process's counters block, opened once and read as consistent snapshots. Reading is
// copying memory: no API call, no provider DLL, no session in the target.

import { decodeBlock, detectBitness, type IpcBlockSnapshot } from '../../../structs/ipcblock/decode.js';
import { IpcBlockError } from '../../../structs/ipcblock/ipc-block-error.js';
import { IPC_BLOCK_SIZE, type Bitness } from '../../../structs/ipcblock/layout.js';
import { readConsistent } from '../../../structs/ipcblock/consistent-read.js';
import { blockPathForPid, mapBlockFile, mapNamedBlock, type MappedBlock } from '../../../structs/ipcblock/mapping.js';

export class CountersSource {
  private readonly copy = new Uint8Array(IPC_BLOCK_SIZE);
  private bitness: Bitness | undefined;

  private constructor(private readonly block: MappedBlock, readonly pid: number) {}

  /** The block clrscope's profiler publishes for `pid`; IpcBlockError (one sentence) when there is none. */
  static forPid(pid: number): CountersSource {
    if (process.platform === 'win32') {
      return new CountersSource(mapNamedBlock(`Local\\clrscope-${pid}`, IPC_BLOCK_SIZE), pid);
    }
    return new CountersSource(mapBlockFile(blockPathForPid(pid), IPC_BLOCK_SIZE), pid);
  }

  /** Opens an already-mapped block (tests, benchmarks). */
  static fromMapped(block: MappedBlock, pid: number): CountersSource {
    return new CountersSource(block, pid);
  }

  get source(): string {
    return this.block.source;
  }

  /** True once the writer has published at least once (the counter leaves 0). */
  written(): boolean {
    return new DataView(this.block.bytes.buffer, this.block.bytes.byteOffset, 4).getInt32(0, true) !== 0;
  }

  /** Copies the block consistently (the sequence lock) into a reused buffer, without decoding. */
  readRaw(): Uint8Array {
    readConsistent(this.block.bytes, this.copy);
    return this.copy;
  }

  read(): IpcBlockSnapshot {
    const raw = this.readRaw();
    this.bitness ??= detectBitness(raw);
    const snapshot = decodeBlock(raw, this.bitness);
    if (snapshot.header.runtimeId === 0) throw new IpcBlockError('unused', `The counters block at ${this.source} is not in use.`);
    return snapshot;
  }

  close(): void {
    this.block.close();
  }
}
