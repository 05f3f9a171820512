// A live process's counters block, opened once and read as consistent snapshots. Reading is
// copying memory: no API call, no provider DLL, no session in the target. In plain Node (the CLI)
// the copy is taken from a view of the mapping; in Electron's main process, whose V8 memory cage
// forbids views of outside memory, by a native memcpy per read (structs/ipcblock/native-memory.ts).
//
// Linux: the block clrscope's profiler publishes (in a container: its /dev/shm, under its own
// pid, reached through /proc/PID/root; diagnostics/namespaces.ts). Windows: that block (Local\clrscope-<pid>) when
// there is one, else the .NET Framework 4.x runtime's own block in the process's block table
// (structs/ipcblock/framework-opener.ts; unverified on a live Windows machine).

import { decodeBlock, detectBitness, type IpcBlockSnapshot } from '../../../structs/ipcblock/decode.js';
import { IpcBlockError } from '../../../structs/ipcblock/ipc-block-error.js';
import { IPC_BLOCK_SIZE, type Bitness } from '../../../structs/ipcblock/layout.js';
import { readConsistent } from '../../../structs/ipcblock/consistent-read.js';
import { type BlockAccess, type BlockAccessMode, mapBlockFile, mapFrameworkBlock, mapNamedBlock, type MappedBlock } from '../../../structs/ipcblock/mapping.js';
import { clause } from '../../../structs/text/clause.js';
import { blockOwnerOf, counterBlockPath } from '../diagnostics/namespaces.js';

export interface CountersSourceOptions {
  /** How the block is read: default CLRSCOPE_BLOCK_ACCESS, else `auto` (a view when the runtime allows one, else copies). */
  readonly access?: BlockAccessMode;
}

export class CountersSource {
  private readonly copy = new Uint8Array(IPC_BLOCK_SIZE);
  private bitness: Bitness | undefined;

  /**
   * @param runtimeId for a block taken from a .NET Framework block table: the RuntimeId it had
   *   when chosen, so a block the runtime gave back (or another runtime took since) is noticed.
   */
  private constructor(private readonly block: MappedBlock, readonly pid: number, private readonly runtimeId?: number) {}

  /**
   * The counters block of `pid`: the one clrscope's profiler publishes; on Windows, when the
   * process has none, its .NET Framework 4.x runtime's own block. IpcBlockError (one sentence)
   * when there is none.
   */
  static forPid(pid: number, options: CountersSourceOptions = {}): CountersSource {
    if (process.platform !== 'win32') {
      return new CountersSource(mapBlockFile(counterBlockPath(pid), IPC_BLOCK_SIZE, { owner: blockOwnerOf(pid), ...options }), pid);
    }
    const ownName = `Local\\clrscope-${pid}`;
    try {
      return new CountersSource(mapNamedBlock(ownName, IPC_BLOCK_SIZE, options), pid);
    } catch (err) {
      if (!(err instanceof IpcBlockError) || err.kind !== 'missing') throw err;
    }
    try {
      const { block, choice } = mapFrameworkBlock(pid, options);
      return new CountersSource(block, pid, choice.runtimeId);
    } catch (err) {
      if (!(err instanceof IpcBlockError)) throw err;
      throw new IpcBlockError(err.kind, `Process ${pid} has no clrscope counters block (${ownName}), and ${clause(err.message)}`);
    }
  }

  /** Opens an already-mapped block (tests, benchmarks). */
  static fromMapped(block: MappedBlock, pid: number): CountersSource {
    return new CountersSource(block, pid);
  }

  get source(): string {
    return this.block.source;
  }

  /** How the block is read: `view` (in place) or `copy` (a native copy per read). */
  get access(): BlockAccess {
    return this.block.access;
  }

  /** True once the writer has published at least once (the counter leaves 0). */
  written(): boolean {
    return this.block.readInt32(0) !== 0;
  }

  /** Copies the block consistently (the sequence lock) into a reused buffer, without decoding. */
  readRaw(): Uint8Array {
    readConsistent(this.block, this.copy);
    return this.copy;
  }

  read(): IpcBlockSnapshot {
    const raw = this.readRaw();
    this.bitness ??= detectBitness(raw);
    const snapshot = decodeBlock(raw, this.bitness);
    if (snapshot.header.runtimeId === 0) throw new IpcBlockError('unused', `The counters block at ${this.source} is not in use.`);
    if (this.runtimeId !== undefined && snapshot.header.runtimeId !== this.runtimeId) {
      throw new IpcBlockError('unused', `The counters block at ${this.source} now belongs to runtime 0x${snapshot.header.runtimeId.toString(16)}: the runtime that held it has shut down.`);
    }
    return snapshot;
  }

  close(): void {
    this.block.close();
  }
}

