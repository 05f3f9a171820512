// Reads the FastSerialization framing of a .nettrace file from chunks of any size: the magic,
// the stream header, the Trace object, then one block object at a time, handed over whole (the
// runtime's blocks are at most ~100 KB, so only one block and one chunk are ever held). Format
// checks happen here: wrong magic, a newer format version, and a file that ends early.

import { BLOCK_VERSION, BlockName, FAST_SERIALIZATION_SIGNATURE, NETTRACE_MAGIC, Tag, TRACE_FIELDS_BYTES, TRACE_OBJECT_VERSION } from './constants.js';
import { NettraceFormatError } from './nettrace-format-error.js';

export interface ObjectSink {
  /** The Trace object's 48 bytes of fields. */
  onTrace(fields: Uint8Array, offset: number): void;
  /** A block's contents (after its size and padding); valid only during the call. */
  onBlock(name: string, contents: Uint8Array, offset: number): void;
}

/** Longest type name a reader accepts (the longest real one is 38 bytes). */
const MAX_TYPE_NAME = 64;
/**
 * A block bigger than this is corruption, not data (the runtime writes ~100 KB blocks); a
 * block is held whole while it is read, so this also bounds the reader's memory.
 */
export const MAX_BLOCK_SIZE = 64 * 1024 * 1024;
const SUPPORTED = 'versions 4 and 5 (what the .NET runtime writes)';
const KNOWN_BLOCKS = new Set<string>([BlockName.Event, BlockName.Metadata, BlockName.Stack, BlockName.SequencePoint]);

type Stage = 'magic' | 'header' | 'objects' | 'done';

export class NettraceObjectReader {
  private readonly sink: ObjectSink;
  private pending: Uint8Array = new Uint8Array(0);
  /** File offset of pending[0]. */
  private pendingOffset = 0;
  /**
   * Chunks after `pending`, held apart while the object being waited for cannot be complete
   * yet: joining every chunk to the pending bytes as it came copied a large block once per
   * chunk, quadratic in the block's size.
   */
  private parts: Uint8Array[] = [];
  private partsLength = 0;
  /** Bytes from pending[0] the object being waited for needs, once its size is known; else 0. */
  private need = 0;
  private stage: Stage = 'magic';
  private sawTrace = false;
  /** Where the object being waited for starts, and what it is, for "truncated" messages. */
  private waitingFor = '';

  constructor(sink: ObjectSink) {
    this.sink = sink;
  }

  get bytesRead(): number {
    return this.pendingOffset + this.pending.length + this.partsLength;
  }

  get finished(): boolean {
    return this.stage === 'done';
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.stage === 'done') {
      this.pendingOffset += this.pending.length + chunk.length;
      this.pending = new Uint8Array(0);
      return;
    }
    const held = this.pending.length + this.partsLength + chunk.length;
    if (this.need > 0 && held < this.need) {
      this.parts.push(chunk.slice());
      this.partsLength += chunk.length;
      return;
    }
    let buf: Uint8Array;
    if (this.pending.length === 0 && this.partsLength === 0) {
      buf = chunk;
    } else {
      buf = new Uint8Array(held);
      buf.set(this.pending);
      let at = this.pending.length;
      for (const part of this.parts) {
        buf.set(part, at);
        at += part.length;
      }
      buf.set(chunk, at);
      this.parts = [];
      this.partsLength = 0;
    }
    this.need = 0;
    const used = this.parse(buf);
    // Keep a copy of the unparsed tail: the caller may reuse its chunk's memory.
    this.pending = buf.slice(used);
    this.pendingOffset += used;
  }

  /** Throws unless the stream ended with its end-of-stream tag. */
  end(): void {
    if (this.stage === 'done') return;
    const at = this.bytesRead;
    if (this.stage === 'magic' && at === 0) throw new NettraceFormatError('The .nettrace file is empty.', 0);
    if (this.waitingFor !== '') {
      throw new NettraceFormatError(`The .nettrace file is truncated: it ends at byte ${at}, inside the ${this.waitingFor}.`, at);
    }
    throw new NettraceFormatError(`The .nettrace file is truncated: it ends at byte ${at}, before its end-of-stream marker.`, at);
  }

  /** Parses whole items from `buf` (file offset pendingOffset); returns the bytes consumed. */
  private parse(buf: Uint8Array): number {
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const base = this.pendingOffset;
    let p = 0;
    for (;;) {
      const avail = buf.length - p;
      if (this.stage === 'magic') {
        this.waitingFor = 'file header';
        if (avail < NETTRACE_MAGIC.length) return p;
        this.checkMagic(buf, p);
        p += NETTRACE_MAGIC.length;
        this.stage = 'header';
      } else if (this.stage === 'header') {
        if (avail < 4) return p;
        const length = view.getInt32(p, true);
        if (length === 0) {
          // Format 6 puts a zero where format 4/5 put the FastSerialization signature's length.
          if (avail < 8) return p;
          const major = view.getInt32(p + 4, true);
          if (major >= 6) throw new NettraceFormatError(`This .nettrace file uses format version ${major}; clrscope reads ${SUPPORTED}.`, base + p + 4);
          // Only format 6 and later put a zero here; a smaller version after it is damage, not a format.
          throw new NettraceFormatError(`Corrupt .nettrace file: the header after "Nettrace" is damaged: it starts with the zero that only format 6 and later write, followed by version ${major}, and not with the "${FAST_SERIALIZATION_SIGNATURE}" header of formats 4 and 5.`, base + p);
        }
        if (length !== FAST_SERIALIZATION_SIGNATURE.length) this.badHeader(base + p);
        if (avail < 4 + length) return p;
        for (let i = 0; i < length; i++) {
          if (buf[p + 4 + i] !== FAST_SERIALIZATION_SIGNATURE.charCodeAt(i)) this.badHeader(base + p);
        }
        p += 4 + length;
        this.stage = 'objects';
        this.waitingFor = '';
      } else if (this.stage === 'objects') {
        if (avail < 1) return p;
        const tag = buf[p];
        if (tag === Tag.NullReference) {
          if (!this.sawTrace) throw new NettraceFormatError(`Corrupt .nettrace file: it ends at byte ${base + p} without a Trace object.`, base + p);
          this.stage = 'done';
          this.waitingFor = '';
          return p + 1;
        }
        const taken = this.object(buf, view, p, base);
        if (taken === 0) return p;
        p += taken;
      } else {
        return buf.length;
      }
    }
  }

  /** Parses one object at p; returns its size, or 0 when more bytes are needed. */
  private object(buf: Uint8Array, view: DataView, p: number, base: number): number {
    const at = base + p;
    this.waitingFor = `object that starts at byte ${at}`;
    const avail = buf.length - p;
    if (avail < 15) return 0;
    if (buf[p] !== Tag.BeginPrivateObject || buf[p + 1] !== Tag.BeginPrivateObject || buf[p + 2] !== Tag.NullReference) {
      throw new NettraceFormatError(`Corrupt .nettrace file: expected an object at byte ${at} but found the bytes ${buf[p]}, ${buf[p + 1]}, ${buf[p + 2]}.`, at);
    }
    const version = view.getInt32(p + 3, true);
    const minimumVersion = view.getInt32(p + 7, true);
    const nameLength = view.getInt32(p + 11, true);
    if (nameLength < 0 || nameLength > MAX_TYPE_NAME) {
      throw new NettraceFormatError(`Corrupt .nettrace file: the object at byte ${at} has a type name ${nameLength} bytes long.`, at);
    }
    if (avail < 16 + nameLength) return 0;
    let name = '';
    for (let i = 0; i < nameLength; i++) name += String.fromCharCode(buf[p + 15 + i]);
    this.waitingFor = `${name || 'object'} that starts at byte ${at}`;
    let q = p + 15 + nameLength;
    if (buf[q] !== Tag.EndObject) throw new NettraceFormatError(`Corrupt .nettrace file: the type of the ${name} object at byte ${at} is not closed.`, base + q);
    q++;
    if (name === BlockName.Trace) {
      // The Trace object's version is 4 in formats 4 and 5 alike: a message names it as the object's, not as the file format's.
      if (minimumVersion > version) {
        throw new NettraceFormatError(`Corrupt .nettrace file: its Trace object at byte ${at} is version ${version} but says it needs a reader of version ${minimumVersion}, newer than itself.`, at + 7);
      }
      if (version > TRACE_OBJECT_VERSION) {
        const needs = minimumVersion > TRACE_OBJECT_VERSION ? `, and needs a reader of version ${minimumVersion}` : '';
        throw new NettraceFormatError(`This .nettrace file's Trace object is version ${version}${needs}, newer than the version ${TRACE_OBJECT_VERSION} of nettrace formats 4 and 5, which clrscope reads.`, at + 3);
      }
      if (version < TRACE_OBJECT_VERSION) {
        throw new NettraceFormatError(`This .nettrace file's Trace object is version ${version}, older than the version ${TRACE_OBJECT_VERSION} of nettrace formats 4 and 5, which clrscope reads.`, at + 3);
      }
      if (buf.length - q < TRACE_FIELDS_BYTES + 1) return 0;
      this.sink.onTrace(buf.subarray(q, q + TRACE_FIELDS_BYTES), base + q);
      q += TRACE_FIELDS_BYTES;
      this.closeObject(buf, q, base, name, at);
      this.sawTrace = true;
      this.waitingFor = '';
      return q + 1 - p;
    }
    if (!this.sawTrace) throw new NettraceFormatError(`Corrupt .nettrace file: a ${name} object at byte ${at} comes before the Trace object.`, at);
    if (minimumVersion > BLOCK_VERSION) {
      throw new NettraceFormatError(`This .nettrace file's ${name} at byte ${at} needs a reader of block version ${minimumVersion}; clrscope reads ${SUPPORTED}.`, at + 7);
    }
    if (buf.length - q < 4) return 0;
    const size = view.getInt32(q, true);
    if (size < 0 || size > MAX_BLOCK_SIZE) {
      throw new NettraceFormatError(`Corrupt .nettrace file: the ${name} at byte ${at} declares a size of ${size} bytes.`, base + q);
    }
    q += 4;
    q += (4 - ((base + q) & 3)) & 3;
    if (buf.length - q < size + 1) {
      this.need = q + size + 1 - p;
      return 0;
    }
    if (KNOWN_BLOCKS.has(name)) this.sink.onBlock(name, buf.subarray(q, q + size), base + q);
    // Unknown object types are skipped: their framing says how far.
    q += size;
    this.closeObject(buf, q, base, name, at);
    this.waitingFor = '';
    return q + 1 - p;
  }

  private closeObject(buf: Uint8Array, q: number, base: number, name: string, at: number): void {
    if (buf[q] !== Tag.EndObject) {
      throw new NettraceFormatError(`Corrupt .nettrace file: the ${name} that starts at byte ${at} does not end where its size says (byte ${base + q}).`, base + q);
    }
  }

  private checkMagic(buf: Uint8Array, p: number): void {
    let ok = true;
    for (let i = 0; i < NETTRACE_MAGIC.length; i++) ok &&= buf[p + i] === NETTRACE_MAGIC.charCodeAt(i);
    if (ok) return;
    // A .netperf file (format 3) starts right away with the FastSerialization signature.
    const netperf = buf[p] === FAST_SERIALIZATION_SIGNATURE.length && buf[p + 1] === 0 && buf[p + 2] === 0 && buf[p + 3] === 0 && buf[p + 4] === 0x21;
    if (netperf) throw new NettraceFormatError(`This is a .netperf file (EventPipe format version 3); clrscope reads ${SUPPORTED}.`, 0);
    throw new NettraceFormatError('Not a .nettrace file: it does not start with the 8 bytes "Nettrace".', 0);
  }

  private badHeader(offset: number): never {
    throw new NettraceFormatError(`Corrupt .nettrace file: the bytes after "Nettrace" are not the "${FAST_SERIALIZATION_SIGNATURE}" header.`, offset);
  }
}
