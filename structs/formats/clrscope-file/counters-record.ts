// The COUNTERS record (PROTOCOL.md, workstation-side records): one reading of the counters block
// kept inside a saved recording. The profiler never sends it; readers that do not know it skip
// it by its length like any unknown type, so a .clrscope file stays a valid wire v1 stream.

import type { CountersPoint } from '../../api/contract.js';
import { MAX_STRING_BYTES } from '../../wire/records.js';
import { WireFormatError } from '../../wire/wire-format-error.js';

export const COUNTERS_RECORD_TYPE = 0x08;

/** u64 unixMs + u32 string length: the fixed part of the body. */
const COUNTERS_MIN = 12;
const TWO_POW_32 = 4294967296;

/** The body of a COUNTERS record: `u64 unixMs`, `str` JSON of the point's sections. */
export function encodeCountersBody(point: CountersPoint): Uint8Array {
  if (!Number.isSafeInteger(point.timeMs) || point.timeMs < 0) {
    throw new RangeError(`A counters point's timeMs must be a non-negative whole number of ms, not ${point.timeMs}.`);
  }
  const json = new TextEncoder().encode(JSON.stringify(point.values));
  // Truncating JSON would corrupt it, unlike a name, so an oversized point is refused outright.
  if (json.length > MAX_STRING_BYTES) {
    throw new RangeError(`A counters point's JSON is ${json.length} bytes, more than the ${MAX_STRING_BYTES} a wire string holds.`);
  }
  const body = new Uint8Array(COUNTERS_MIN + json.length);
  const view = new DataView(body.buffer);
  view.setUint32(0, point.timeMs % TWO_POW_32, true);
  view.setUint32(4, Math.floor(point.timeMs / TWO_POW_32), true);
  view.setUint32(8, json.length, true);
  body.set(json, COUNTERS_MIN);
  return body;
}

function corrupt(offset: number, why: string): never {
  throw new WireFormatError(`Corrupt clrscope file: the COUNTERS record at byte ${offset} ${why}.`, offset);
}

function isSections(value: unknown): value is Record<string, Record<string, number>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const section of Object.values(value as Record<string, unknown>)) {
    if (typeof section !== 'object' || section === null || Array.isArray(section)) return false;
    for (const v of Object.values(section as Record<string, unknown>)) if (typeof v !== 'number') return false;
  }
  return true;
}

/** Parses a COUNTERS body; `offset` is the record's stream offset, for the error sentence. */
export function decodeCountersBody(body: Uint8Array, offset: number): CountersPoint {
  if (body.length < COUNTERS_MIN) corrupt(offset, `has a ${body.length}-byte body, shorter than the ${COUNTERS_MIN} bytes its fields need`);
  const view = new DataView(body.buffer, body.byteOffset, body.length);
  const timeMs = view.getUint32(0, true) + view.getUint32(4, true) * TWO_POW_32;
  const length = view.getUint32(8, true);
  if (length > MAX_STRING_BYTES) corrupt(offset, `holds a ${length}-byte string, more than the ${MAX_STRING_BYTES} allowed`);
  // Bytes after the string are a later revision's fields (PROTOCOL.md): ignored.
  if (COUNTERS_MIN + length > body.length) corrupt(offset, `claims a ${length}-byte string but its body has only ${body.length - COUNTERS_MIN} left`);
  let values: unknown;
  try {
    values = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(COUNTERS_MIN, COUNTERS_MIN + length)));
  } catch {
    corrupt(offset, 'holds text that is not valid JSON');
  }
  if (!isSections(values)) corrupt(offset, 'holds JSON that is not an object of sections of numbers');
  return { timeMs, values };
}
