// The HEAP_SNAPSHOT record (PROTOCOL.md, workstation-side records): a heap snapshot kept inside a
// saved recording, as the bytes of a .clrheap file (structs/formats/clrheap/) cut into pieces that
// fit a record (a wire record is at most 1 MiB). Readers that do not know the type skip it by its
// length, so such a .clrscope still opens everywhere as the recording it is; the heap formats
// (structs/heap/heap-formats.ts) read the snapshots back out of it.

import { SPOOLED_RECORD_TYPE } from './spooled-record.js';

export const HEAP_SNAPSHOT_RECORD_TYPE = 0x32;

/** u32 snapshot, u32 piece, u32 pieces: the fixed part of the body. */
const HEAP_PIECE_HEADER = 12;
/** Bytes of the .clrheap file per record: the record (type, header, piece) stays under the wire's 1 MiB. */
export const HEAP_PIECE_BYTES = 1_000_000;
const MAX_RECORD = 1 << 20;
const PREAMBLE_MAGIC = 'CLRSCOPE';

export class HeapRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeapRecordError';
  }
}

/** The records (u32 length, u8 type, body each) that keep snapshot number `snapshot` of a file: `clrheap` cut into pieces. */
export function* heapSnapshotRecords(clrheap: Uint8Array, snapshot: number): Generator<Uint8Array> {
  const pieces = Math.max(1, Math.ceil(clrheap.length / HEAP_PIECE_BYTES));
  for (let p = 0; p < pieces; p++) {
    const piece = clrheap.subarray(p * HEAP_PIECE_BYTES, Math.min(clrheap.length, (p + 1) * HEAP_PIECE_BYTES));
    const record = new Uint8Array(5 + HEAP_PIECE_HEADER + piece.length);
    const view = new DataView(record.buffer);
    view.setUint32(0, 1 + HEAP_PIECE_HEADER + piece.length, true);
    record[4] = HEAP_SNAPSHOT_RECORD_TYPE;
    view.setUint32(5, snapshot, true);
    view.setUint32(9, p, true);
    view.setUint32(13, pieces, true);
    record.set(piece, 5 + HEAP_PIECE_HEADER);
    yield record;
  }
}

export function isClrscopeFile(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  for (let i = 0; i < 8; i++) if (head[i] !== PREAMBLE_MAGIC.charCodeAt(i)) return false;
  return true;
}

/**
 * The .clrheap bytes of every snapshot a .clrscope file keeps, in file order. Only the record
 * framing is read (every other record is stepped over by its length), so the cost is linear in
 * the file. A snapshot's pieces must come in order, whole; a file written as it arrived (SPOOLED)
 * may end inside its last record, which is dropped with the snapshot it belonged to.
 */
export function clrheapsInClrscope(bytes: Uint8Array): Uint8Array[] {
  if (!isClrscopeFile(bytes) || bytes.length < 16) throw new HeapRecordError('it is not a clrscope recording (no CLRSCOPE preamble)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const preamble = view.getUint16(10, true);
  if (preamble < 16 || preamble > bytes.length) throw new HeapRecordError(`its preamble says it is ${preamble} bytes long`);
  const done: Uint8Array[] = [];
  let open: { snapshot: number; pieces: number; parts: Uint8Array[]; size: number } | undefined;
  let spooled = false;
  let at = preamble;
  while (at < bytes.length) {
    if (bytes.length - at < 5) {
      if (spooled) break;
      throw new HeapRecordError(`it ends inside the record at byte ${at}`);
    }
    const length = view.getUint32(at, true);
    if (length === 0 || length > MAX_RECORD) throw new HeapRecordError(`the record at byte ${at} says it is ${length} bytes long`);
    if (at + 4 + length > bytes.length) {
      if (spooled) break;
      throw new HeapRecordError(`it ends inside the record at byte ${at}`);
    }
    const type = bytes[at + 4];
    if (type === SPOOLED_RECORD_TYPE) spooled = true;
    if (type === HEAP_SNAPSHOT_RECORD_TYPE) {
      if (length < 1 + HEAP_PIECE_HEADER) throw new HeapRecordError(`the heap snapshot record at byte ${at} is too short`);
      const snapshot = view.getUint32(at + 5, true);
      const piece = view.getUint32(at + 9, true);
      const pieces = view.getUint32(at + 13, true);
      const part = bytes.subarray(at + 5 + HEAP_PIECE_HEADER, at + 4 + length);
      if (open === undefined) {
        if (piece !== 0) throw new HeapRecordError(`the heap snapshot record at byte ${at} is piece ${piece} of snapshot ${snapshot}, whose first piece is missing`);
        open = { snapshot, pieces, parts: [], size: 0 };
      } else if (snapshot !== open.snapshot || pieces !== open.pieces || piece !== open.parts.length) {
        throw new HeapRecordError(`the heap snapshot record at byte ${at} breaks snapshot ${open.snapshot}, after its piece ${open.parts.length - 1} of ${open.pieces}`);
      }
      if (pieces === 0 || piece >= pieces) throw new HeapRecordError(`the heap snapshot record at byte ${at} is piece ${piece} of ${pieces}`);
      open.parts.push(part);
      open.size += part.length;
      if (open.parts.length === open.pieces) {
        const whole = new Uint8Array(open.size);
        let o = 0;
        for (const p of open.parts) {
          whole.set(p, o);
          o += p.length;
        }
        done.push(whole);
        open = undefined;
      }
    } else if (open !== undefined) {
      throw new HeapRecordError(`heap snapshot ${open.snapshot} stops after ${open.parts.length} of its ${open.pieces} pieces`);
    }
    at += 4 + length;
  }
  if (open !== undefined && !spooled) throw new HeapRecordError(`heap snapshot ${open.snapshot} stops after ${open.parts.length} of its ${open.pieces} pieces`);
  return done;
}
