// The merged stream of process-tree-stream.ts: the encoder every process's records are written
// into once several processes are merged, and the merged recording's id spaces (the same
// interning and keys as merge-processes.ts uses after the fact, merged-ids.ts), stack ids
// across STACK_RESETs, the summed STATS and the PROCESS records.

import { MergedIds, summedStats } from '../../profile/merged-ids.js';
import { WireEncoder } from '../../wire/encoder.js';
import { MAX_STACK_ID, type HelloRecord, type StatsRecord } from '../../wire/records.js';
import { encodeProcessBody, PROCESS_RECORD_TYPE } from './process-record.js';
import type { ProcessReencoder } from './process-reencoder.js';

export interface ProcessTreeStreamOptions {
  /** The kernel's name of a process ("dotnet"), asked once when its HELLO arrives; '' when unknown. */
  nameOf: (pid: number) => string;
  /** Called once per process that stops being merged, with why. */
  onFailure?: (pid: number | undefined, sentence: string) => void;
}

/** One stack of a process: its frames in the merged ids, and the merged stack id it has now (0: none since the last merged STACK_RESET). */
export interface PartStack {
  flags: number;
  frames: Uint32Array;
  merged: number;
  epoch: number;
}

const ENCODER_BYTES = 1 << 16;

/** What every process's records are written into: the encoder and the merged id spaces. */
export class MergedEncoder {
  readonly enc = new WireEncoder(ENCODER_BYTES);
  readonly parts: ProcessReencoder[] = [];
  helloWritten = false;
  several = false;
  readonly modules = new MergedIds();
  readonly functions = new MergedIds();
  readonly frames = new MergedIds();
  readonly strings = new MergedIds();
  private nextThread = 1;
  private nextStack = 1;
  /** Counts merged STACK_RESETs: a part's stack defined in an earlier epoch is defined again on its next use. */
  private stackEpoch = 0;
  private nextTask = 1;
  readonly definedTasks = new Set<number>();
  private nextRequest = 1;
  /** Samples in the merged stream so far, every process's (REQUEST_BACKFILL counts back in them). */
  samplesWritten = 0;

  constructor(readonly options: ProcessTreeStreamOptions) {}

  writeHello(r: HelloRecord): void {
    this.enc.preamble().hello({
      pid: r.pid, flags: r.flags, mono: r.mono, unixNs: r.unixNs, intervalNs: r.intervalNs,
      wallThreadsPerTick: r.wallThreadsPerTick, runtimeVersion: r.runtimeVersion, profilerVersion: r.profilerVersion,
    });
    this.helloWritten = true;
  }

  /** A process said HELLO; once a second one has, the stream holds several. */
  joined(part: ProcessReencoder): void {
    if (this.several) {
      this.writeProcess(part, []);
    } else if (!part.first) {
      this.several = true;
      // The encoder goes on from where the first process's own bytes stopped.
      const first = this.parts.find((p) => p.first);
      if (first?.passThrough === true) this.enc.continueAfter(first.stopPassingThrough());
      for (const p of this.parts) if (p.pid !== undefined) p.nameThreadsAgain();
    }
  }

  newThreadId(): number {
    return this.nextThread++;
  }

  newTaskId(): number {
    return this.nextTask++;
  }

  /** A merged request seq: each process numbers its requests from 1, so they are numbered again. */
  newRequestSeq(): number {
    return this.nextRequest++;
  }

  // The first process's own ids, while its bytes pass: what is numbered later goes above them.
  adoptThread(id: number): void {
    if (id >= this.nextThread) this.nextThread = id + 1;
  }

  adoptStack(id: number): void {
    if (id >= this.nextStack) this.nextStack = id + 1;
  }

  /** The first process's STACK_RESET, passed on: the merged stream forgot every stack too. */
  adoptStackReset(): void {
    this.nextStack = 1;
  }

  adoptTask(id: number): void {
    if (id >= this.nextTask) this.nextTask = id + 1;
  }

  adoptRequestSeq(seq: number): void {
    if (seq >= this.nextRequest) this.nextRequest = seq + 1;
  }

  get currentStackEpoch(): number {
    return this.stackEpoch;
  }

  /** The merged id of a part's stack now, defined (after a STACK_RESET when the ids ran out) on its first use. */
  stackId(stack: PartStack): number {
    if (stack.merged !== 0 && stack.epoch === this.stackEpoch) return stack.merged;
    if (this.nextStack > MAX_STACK_ID) {
      this.enc.stackReset();
      this.stackEpoch++;
      this.nextStack = 1;
    }
    const id = this.nextStack++;
    this.enc.stack(id, stack.flags, stack.frames);
    stack.merged = id;
    stack.epoch = this.stackEpoch;
    return id;
  }

  /** Every process's latest STATS, summed: the recording's (as merge-processes.ts sums them). */
  writeStats(): void {
    const all = this.parts.map((p) => p.stats).filter((s): s is StatsRecord => s !== undefined);
    this.enc.stats(summedStats(all));
  }

  /** A PROCESS record; one with no threads declares the process (so processes are listed in the order they connected). */
  writeProcess(part: ProcessReencoder, threadIds: readonly number[]): void {
    if (part.pid === undefined) return;
    this.enc.raw(PROCESS_RECORD_TYPE, encodeProcessBody({ pid: part.pid, name: part.name }, threadIds));
  }
}
