// Talks to a profiler about the methods it measures exactly: sends MEASURE and REVERT commands
// on the stream's socket and reads the MEASURE_* records out of the stream's bytes. One channel
// per stream; it must see the stream's bytes from the first (create the channels with the
// collector, through its onChunk).

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import { encodeMeasureCommand, encodeRevertCommand } from '../../../structs/wire/control-commands.js';
import type { MeasureRecord, MeasureReplyRecord } from '../../../structs/wire/measure-records.js';
import { MeasureReader, type Measurements } from '../../../structs/measure/measurements.js';
import { UserError } from '../errors/user-error.js';

export class MeasureChannel {
  private readonly reader: MeasureReader;
  private nextRequest = 1;
  private readonly listeners = new Set<(record: MeasureRecord) => void>();

  constructor(readonly stream: CollectedStream) {
    this.reader = new MeasureReader(undefined, (record) => {
      for (const l of this.listeners) l(record);
    });
  }

  get measurements(): Measurements {
    return this.reader.measurements;
  }

  /** Whether the profiler announced that it reads commands (CONTROL_READY). */
  get ready(): boolean {
    return this.measurements.controlReady !== undefined;
  }

  push(chunk: Uint8Array): void {
    this.reader.push(chunk);
  }

  /** Called with every measuring record as it arrives; returns its removal. */
  onRecord(listener: (record: MeasureRecord) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /** Resolves true once `check` holds (checked after every record), false at the deadline or when the stream closes. */
  async until(check: () => boolean, timeoutMs: number): Promise<boolean> {
    if (check()) return true;
    return new Promise<boolean>((resolve) => {
      const done = (value: boolean): void => {
        clearTimeout(timer);
        remove();
        resolve(value);
      };
      const timer = setTimeout(() => done(check()), timeoutMs);
      const remove = this.onRecord(() => { if (check()) done(true); });
      void this.stream.closed.then(() => done(check()));
    });
  }

  async waitReady(timeoutMs: number): Promise<void> {
    if (!(await this.until(() => this.ready, timeoutMs))) {
      throw new UserError(`The profiler in process ${this.stream.pid ?? '?'} does not take measuring commands (it announced no control channel within ${Math.round(timeoutMs / 1000)} s).`);
    }
  }

  /** Measures every method the pattern names; resolves with the profiler's answer. */
  async measure(pattern: string, timeoutMs = 30000): Promise<MeasureReplyRecord> {
    return this.command((request) => encodeMeasureCommand(request, pattern), `measuring ${pattern}`, timeoutMs);
  }

  /** Gives one method (or with 0 every method) its original code back. */
  async revert(measureId = 0, timeoutMs = 30000): Promise<MeasureReplyRecord> {
    return this.command((request) => encodeRevertCommand(request, measureId), 'reverting', timeoutMs);
  }

  private async command(encode: (request: number) => Uint8Array, what: string, timeoutMs: number): Promise<MeasureReplyRecord> {
    if (!this.ready) throw new UserError(`The profiler in process ${this.stream.pid ?? '?'} does not take measuring commands.`);
    const request = this.nextRequest++;
    if (!this.stream.send(encode(request))) throw new UserError(`The connection to process ${this.stream.pid ?? '?'} is closed, so ${what} could not be asked for.`);
    if (!(await this.until(() => this.measurements.reply(request) !== undefined, timeoutMs))) {
      throw new UserError(`Process ${this.stream.pid ?? '?'} did not answer ${what} within ${Math.round(timeoutMs / 1000)} s.`);
    }
    const reply = this.measurements.reply(request);
    if (reply === undefined) throw new UserError(`Process ${this.stream.pid ?? '?'} did not answer ${what}.`);
    return reply;
  }
}

/** A channel per stream of one collector: pass `onChunk` to the collector when starting it. */
export class MeasureChannels {
  private readonly byStream = new Map<CollectedStream, MeasureChannel>();

  readonly onChunk: ChunkListener = (stream, chunk) => this.of(stream).push(chunk);

  of(stream: CollectedStream): MeasureChannel {
    let channel = this.byStream.get(stream);
    if (channel === undefined) {
      channel = new MeasureChannel(stream);
      this.byStream.set(stream, channel);
    }
    return channel;
  }
}
