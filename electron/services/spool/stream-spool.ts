// Keeps a profiler's stream on disk as it arrives, so that a clrscope killed or crashed
// mid-recording leaves a recording behind. A .clrscope file is the stream itself, so the
// spool is one: the bytes as received, with a SPOOLED record after the preamble that tells
// readers a last record cut off by a killed writer is to be dropped rather than refused.
// Written synchronously as each chunk arrives (the bytes reach the kernel at once: a killed
// process loses none of them), every write checked; a write that fails stops the spool, not
// the recording. Reusable by anything that receives a stream (clrscope record today, the
// workstation's sessions later).

import { closeSync, constants, ftruncateSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { RecordTap } from '../../../structs/formats/clrscope-file/record-tap.js';
import { spooledRecordBytes } from '../../../structs/formats/clrscope-file/spooled-record.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { RecordType, type EndRecord } from '../../../structs/wire/records.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { createExclusiveSync } from '../files/exclusive-file.js';
import { moveIntoPlace } from '../files/move-into-place.js';
import { writeAllSync, writeAllSyncAt } from '../files/write-all.js';

export class StreamSpool {
  private fd: number | undefined;
  private tap: RecordTap;
  private sawEnd = false;
  /** Stream bytes taken so far (the file holds these plus the SPOOLED record once past the preamble). */
  private streamBytes = 0;
  private markerWritten = false;
  private failureText: string | undefined;
  /** Closed after the last write (not failed): finish() may still open the file again to complete it. */
  private closedAfterWriting = false;

  private constructor(readonly path: string, fd: number, private readonly onFailure: (sentence: string) => void) {
    this.fd = fd;
    this.tap = this.newTap();
  }

  /** Creates the spool file exclusively (mode 0600, never through a link) in `dir`, which must be private. */
  static create(dir: string, name: string, onFailure: (sentence: string) => void = () => undefined): StreamSpool {
    const path = join(dir, name);
    return new StreamSpool(path, createExclusiveSync(path), onFailure);
  }

  /** Why the spool stopped, when a write failed. */
  get failure(): string | undefined {
    return this.failureText;
  }

  /** Whether every byte received so far is in the file. */
  get intact(): boolean {
    return this.failureText === undefined && this.fd !== undefined;
  }

  /** Whether the file holds at least one whole record after the preamble (else it is not worth keeping). */
  get holdsRecords(): boolean {
    const preambleEnd = this.tap.preambleEnd;
    return preambleEnd !== undefined && this.tap.completeBytes > preambleEnd;
  }

  /** The stream offset the SPOOLED record was written at (the preamble's end), once it was: file offsets after it are larger by its size. */
  get markerAt(): number | undefined {
    return this.markerWritten ? this.tap.preambleEnd : undefined;
  }

  /** Appends the next bytes of the stream. Never throws: a failed write stops the spool and is reported once. */
  push(chunk: Uint8Array): void {
    if (this.fd === undefined || this.failureText !== undefined) return;
    try {
      this.tap.push(chunk);
      const preambleEnd = this.tap.preambleEnd;
      if (!this.markerWritten && preambleEnd !== undefined) {
        // The preamble ends inside this chunk: the SPOOLED record goes right after it.
        const split = preambleEnd - this.streamBytes;
        writeAllSync(this.fd, chunk.subarray(0, split));
        writeAllSync(this.fd, spooledRecordBytes());
        this.markerWritten = true;
        writeAllSync(this.fd, chunk.subarray(split));
      } else {
        writeAllSync(this.fd, chunk);
      }
      this.streamBytes += chunk.length;
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * Ends the file as a complete recording: drops a record only half received, and appends
   * `end` when the stream itself had no END (a stop made here). Without `end` the file stays
   * a cut recording. Returns false when the spool is not intact.
   */
  finish(end: EndRecord | undefined): boolean {
    if (this.failureText !== undefined) return false;
    try {
      // A session's stream closes its spool when the stream ends; completing it comes later.
      if (this.fd === undefined && this.closedAfterWriting) this.fd = openSync(this.path, constants.O_WRONLY | constants.O_NOFOLLOW);
      if (this.fd === undefined) return false;
      const marker = this.markerWritten ? spooledRecordBytes().length : 0;
      ftruncateSync(this.fd, this.tap.completeBytes + marker);
      if (end !== undefined && !this.sawEnd && this.markerWritten) {
        const bytes = new WireEncoder().end(end).bytes();
        // ftruncate does not move the descriptor's offset: write at the new end explicitly.
        writeAllSyncAt(this.fd, bytes, this.tap.completeBytes + marker);
      }
      closeSync(this.fd);
      this.fd = undefined;
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  /** Moves the finished file to `target` (a rename, or a copy across file systems); UserError when it cannot be. */
  async moveTo(target: string): Promise<void> {
    this.close();
    await moveIntoPlace(this.path, target);
    this.closedAfterWriting = false;
  }

  close(): void {
    if (this.fd === undefined) return;
    if (this.failureText === undefined) this.closedAfterWriting = true;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing more will be written; what is on disk stays.
    }
    this.fd = undefined;
  }

  /** Deletes the file (after the recording was saved elsewhere). */
  remove(): void {
    this.close();
    this.closedAfterWriting = false;
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }

  private newTap(): RecordTap {
    return new RecordTap(RecordType.End, () => { this.sawEnd = true; });
  }

  private fail(err: unknown): void {
    this.failureText = `The recording could not be kept on disk as it arrived (${fsErrorText(err, this.path, 'write')}); it goes on in memory, and ${this.path} holds what was written before.`;
    this.close();
    this.onFailure(this.failureText);
  }
}
