// A session's wire stream as it arrived, kept on disk (a spool file, services/spool/) rather than
// in memory, so an hours-long session costs the main process its models, not its bytes. Any
// client can read it back from any offset (a renderer that reloads starts over, one that
// reconnects resumes) while new bytes keep arriving. Only when the spool cannot be written (no
// private cache folder, a full disk) are the bytes from there on kept in memory instead.

import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { spooledRecordBytes } from '../../../structs/formats/clrscope-file/spooled-record.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { StreamSpool } from './stream-spool.js';

export interface StoredChunk {
  offset: number;
  chunk: Uint8Array;
}

/** A replay reads at most this much per step, so a long recording replays in steps a client can keep up with. */
export const REPLAY_CHUNK_BYTES = 1 << 20;

const MARKER_BYTES = spooledRecordBytes().length;

export class SessionStream {
  private total = 0;
  private spool: StreamSpool | undefined;
  private reader: Promise<FileHandle> | undefined;
  /** Bytes from this stream offset on are in `memory` (the spool failed or never was); Infinity while all are on disk. */
  private memoryFrom: number;
  private readonly memory: Uint8Array[] = [];
  private memoryBytes = 0;
  private closed = false;

  private constructor(spool: StreamSpool | undefined) {
    this.spool = spool;
    this.memoryFrom = spool === undefined ? 0 : Infinity;
  }

  /**
   * A stream spooled to a new file named `name` in `dir` (which must be private), or kept in
   * memory when `dir` is undefined or the file cannot be created; `onFailure` hears why once.
   */
  static create(dir: string | undefined, name: string, onFailure: (sentence: string) => void = () => undefined): SessionStream {
    if (dir === undefined) return new SessionStream(undefined);
    let spool: StreamSpool;
    try {
      spool = StreamSpool.create(dir, name, (sentence) => onFailure(sentence));
    } catch (err) {
      onFailure(`The recording cannot be kept on disk (${fsErrorText(err, join(dir, name), 'write')}); it is kept in memory.`);
      return new SessionStream(undefined);
    }
    return new SessionStream(spool);
  }

  /** A stream spooled to a new file named `name` in `dir` (which must be private); throws when the file cannot be created. */
  static onDisk(dir: string, name: string, onFailure: (sentence: string) => void = () => undefined): SessionStream {
    return new SessionStream(StreamSpool.create(dir, name, onFailure));
  }

  /** A stream kept in memory only (tests, and sessions that cannot spool). */
  static inMemory(): SessionStream {
    return new SessionStream(undefined);
  }

  get length(): number {
    return this.total;
  }

  /** The spool file, while the stream is spooled. */
  get path(): string | undefined {
    return this.spool?.path;
  }

  /**
   * The spool file itself (undefined in memory): `clrscope record` completes it into a
   * .clrscope file and moves it into place, or keeps it when the save fails. Read the stream
   * back before finishing the file: finishing drops a record only half received.
   */
  get spoolFile(): StreamSpool | undefined {
    return this.spool;
  }

  /** Bytes held in memory: 0 while the spool works. */
  get bytesInMemory(): number {
    return this.memoryBytes;
  }

  /** Appends `chunk` and returns it with its offset, as a tight copy (Electron's IPC clones whole buffers). */
  append(chunk: Uint8Array): StoredChunk {
    const offset = this.total;
    const tight = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice();
    if (this.closed) return { offset, chunk: tight };
    if (this.memoryFrom === Infinity && this.spool !== undefined) {
      this.spool.push(tight);
      // A failed write may have left part of this chunk in the file: from it on, memory holds the stream.
      if (!this.spool.intact) this.memoryFrom = offset;
    }
    if (offset >= this.memoryFrom) {
      const copy = tight === chunk ? chunk.slice() : tight;
      this.memory.push(copy);
      this.memoryBytes += copy.length;
    }
    this.total += chunk.length;
    return { offset, chunk: tight };
  }

  /** Nothing more will be appended: the spool's writing end closes (the file stays readable until close()). */
  end(): void {
    this.spool?.close();
  }

  /** Up to `maxBytes` of the stream from `offset` (empty at the end); rejects once the stream is closed. */
  async read(offset: number, maxBytes = REPLAY_CHUNK_BYTES): Promise<Uint8Array> {
    if (this.closed) throw new Error('The session was closed.');
    const end = Math.min(this.total, offset + maxBytes);
    if (offset >= end) return new Uint8Array(0);
    if (offset >= this.memoryFrom) return this.fromMemory(offset, end);
    const diskEnd = Math.min(end, this.memoryFrom);
    const disk = await this.fromDisk(offset, diskEnd);
    if (diskEnd === end) return disk;
    const out = new Uint8Array(end - offset);
    out.set(disk, 0);
    out.set(this.fromMemory(diskEnd, end), disk.length);
    return out;
  }

  /** Closes the file handle reads went through (the file stays); a later read opens it again. */
  async closeReader(): Promise<void> {
    const reader = this.reader;
    this.reader = undefined;
    if (reader !== undefined) await reader.then((h) => h.close(), () => undefined);
  }

  /** Frees everything: the memory, and the spool file (deleted). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.memory.length = 0;
    this.memoryBytes = 0;
    this.spool?.remove();
    this.spool = undefined;
    const reader = this.reader;
    this.reader = undefined;
    if (reader !== undefined) await reader.then((h) => h.close(), () => undefined);
  }

  private fromMemory(from: number, to: number): Uint8Array {
    const out = new Uint8Array(to - from);
    let at = this.memoryFrom;
    for (const piece of this.memory) {
      const pieceEnd = at + piece.length;
      if (pieceEnd > from && at < to) {
        const a = Math.max(from, at);
        const b = Math.min(to, pieceEnd);
        out.set(piece.subarray(a - at, b - at), a - from);
      }
      if (pieceEnd >= to) break;
      at = pieceEnd;
    }
    return out;
  }

  /** Stream bytes [from, to) from the spool file, where the SPOOLED record follows the preamble. */
  private async fromDisk(from: number, to: number): Promise<Uint8Array> {
    const spool = this.spool;
    if (spool === undefined) throw new Error('The session was closed.');
    this.reader ??= open(spool.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const handle = await this.reader;
    const marker = spool.markerAt;
    const out = new Uint8Array(to - from);
    const parts: [number, number, number][] = []; // [stream from, stream to, file offset]
    if (marker === undefined || to <= marker) parts.push([from, to, from]);
    else if (from >= marker) parts.push([from, to, from + MARKER_BYTES]);
    else parts.push([from, marker, from], [marker, to, marker + MARKER_BYTES]);
    for (const [a, b, fileAt] of parts) {
      let done = 0;
      while (done < b - a) {
        const { bytesRead } = await handle.read(out, a - from + done, b - a - done, fileAt + done);
        if (bytesRead === 0) throw new Error(`The spool file ${spool.path} ends before byte ${fileAt + done}.`);
        done += bytesRead;
      }
    }
    return out;
  }
}
