// Follows the record framing of a wire stream next to the WireDecoder and hands over the whole
// body of each record of the types asked for. The decoder reports types it does not know only by their
// length, and a saved file's COUNTERS records are such a type; re-framing is cheap (one jump
// per record) and keeps structs/wire's decoder free of workstation-side record types.
//
// Feed it the same chunks after the decoder accepted them: the decoder has then already
// checked the preamble and every length, so the tap trusts them (a length above the wire's
// limit is still never allocated). It also knows where the last whole record ends, which a
// writer of a stream as it arrives (the spool) needs to cut a half-received record off.

import { MAX_RECORD_LENGTH, PREAMBLE_SIZE } from '../../wire/records.js';

export type TapHandler = (body: Uint8Array, recordOffset: number, type: number) => void;

export class RecordTap {
  private offset = 0;
  private inPreamble = true;
  private preambleTotal = PREAMBLE_SIZE;
  private preambleSeen = 0;
  private preambleSizeLow = 0;
  private header = new Uint8Array(5);
  private headerLen = 0;
  private bodyLeft = 0;
  private body: Uint8Array | undefined;
  private bodyLen = 0;
  private recordOffset = 0;
  private boundary = 0;
  private recordType = 0;
  private readonly types: ReadonlySet<number>;

  /** `types`: the record type, or types, whose bodies to hand over. */
  constructor(types: number | readonly number[], private readonly onRecord: TapHandler) {
    this.types = new Set(typeof types === 'number' ? [types] : types);
  }

  /** Stream offset just after the preamble, once all of it has been seen. */
  get preambleEnd(): number | undefined {
    return this.inPreamble ? undefined : this.preambleTotal;
  }

  /** Stream offset where the last whole record (or the preamble) ends: what is kept of a stream cut here. */
  get completeBytes(): number {
    return this.boundary;
  }

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    let p = 0;
    while (p < n) {
      if (this.inPreamble) {
        p = this.preamble(chunk, p);
        if (!this.inPreamble) this.boundary = this.offset + p;
        continue;
      }
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, n - p);
        if (this.body !== undefined) this.body.set(chunk.subarray(p, p + take), this.bodyLen);
        this.bodyLen += take;
        this.bodyLeft -= take;
        p += take;
        if (this.bodyLeft === 0) this.finishBody(this.offset + p);
        continue;
      }
      if (this.headerLen === 0 && n - p >= 5) {
        // The common case: the whole header is in this chunk, so no copy is needed.
        const length = (chunk[p] | (chunk[p + 1] << 8) | (chunk[p + 2] << 16) | (chunk[p + 3] << 24)) >>> 0;
        this.startRecord(this.offset + p, length, chunk[p + 4], this.offset + p + 5);
        p += 5;
        continue;
      }
      this.header[this.headerLen++] = chunk[p++];
      if (this.headerLen === 5) {
        const h = this.header;
        const length = (h[0] | (h[1] << 8) | (h[2] << 16) | (h[3] << 24)) >>> 0;
        this.startRecord(this.offset + p - 5, length, h[4], this.offset + p);
        this.headerLen = 0;
      }
    }
    this.offset += n;
  }

  private preamble(chunk: Uint8Array, p: number): number {
    // Byte by byte: the preamble comes once, and its size field may straddle two chunks.
    while (p < chunk.length && this.preambleSeen < this.preambleTotal) {
      const b = chunk[p++];
      if (this.preambleSeen === 10) this.preambleSizeLow = b;
      // A longer preamble (a later revision's fields) is skipped, as the decoder skips it.
      if (this.preambleSeen === 11) this.preambleTotal = Math.max(PREAMBLE_SIZE, this.preambleSizeLow | (b << 8));
      this.preambleSeen++;
    }
    if (this.preambleSeen === this.preambleTotal) this.inPreamble = false;
    return p;
  }

  /** `bodyStart`: the stream offset just after the record's header. */
  private startRecord(offset: number, length: number, type: number, bodyStart: number): void {
    this.recordOffset = offset;
    this.bodyLeft = Math.max(0, length - 1);
    this.bodyLen = 0;
    this.recordType = type;
    this.body = this.types.has(type) && length <= MAX_RECORD_LENGTH ? new Uint8Array(this.bodyLeft) : undefined;
    if (this.bodyLeft === 0) this.finishBody(bodyStart);
  }

  /** `end`: the stream offset just after the record. */
  private finishBody(end: number): void {
    this.boundary = end;
    const body = this.body;
    this.body = undefined;
    if (body !== undefined) this.onRecord(body, this.recordOffset, this.recordType);
  }
}
