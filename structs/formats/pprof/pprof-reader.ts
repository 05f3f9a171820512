// A lean reader of profile.proto: what from-pprof.ts needs, decoded straight from the bytes.
// pprof-format's decoder made an object and a Buffer view per number (9 s and 470 MB for 30 MB
// of location ids); here the dictionaries (strings, functions, locations, mappings) are read
// once and samples are decoded one at a time when visited, so memory stays near the input's
// size and time linear in it. Every length is checked against what is left of its message.

import { PprofFormatError } from './pprof-format-error.js';

export interface ValueTypeRec { type: number; unit: number }
export interface FunctionRec { id: number; name: number; systemName: number; filename: number }
export interface LocationRec { id: number; mappingId: number; address: bigint; functionIds: number[] }
export interface MappingRec { id: number; filename: number }
export interface LabelRec { key: number; str: number; num: number }
export interface SampleRec { locationIds: number[]; values: number[]; labels: LabelRec[] }

export interface PprofProfile {
  sampleTypes: ValueTypeRec[];
  strings: string[];
  functions: FunctionRec[];
  locations: LocationRec[];
  mappings: MappingRec[];
  timeNanos: bigint;
  periodType: ValueTypeRec | undefined;
  period: number;
  comments: number[];
  defaultSampleType: number;
  /** Start and end offsets of each Sample message, in file order. */
  sampleSpans: number[];
}

const TWO_POW_63 = 2 ** 63;
const TWO_POW_64 = 2 ** 64;

class Reader {
  pos: number;
  constructor(readonly bytes: Uint8Array, start: number, readonly end: number) {
    this.pos = start;
  }

  get more(): boolean {
    return this.pos < this.end;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) truncated(`it ends inside a number at byte ${this.pos}`);
      const b = this.bytes[this.pos++];
      value += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) return value;
    }
    throw new PprofFormatError(`Not a readable pprof profile: the number before byte ${this.pos} is longer than 10 bytes (the file is corrupt).`);
  }

  /** An int64 written as a varint: two's complement above 2^63. */
  int64(): number {
    const v = this.varint();
    return v >= TWO_POW_63 ? v - TWO_POW_64 : v;
  }

  bigVarint(): bigint {
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) truncated(`it ends inside a number at byte ${this.pos}`);
      const b = this.bytes[this.pos++];
      value |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if ((b & 0x80) === 0) return BigInt.asIntN(64, value);
    }
    throw new PprofFormatError(`Not a readable pprof profile: the number before byte ${this.pos} is longer than 10 bytes (the file is corrupt).`);
  }

  /** Reads a tag; returns [field, wireType]. */
  tag(): [number, number] {
    const start = this.pos;
    const tag = this.varint();
    if (tag < 8) throw new PprofFormatError(`Not a readable pprof profile: the field at byte ${start} has number 0, which protobuf does not allow (the file is not a pprof profile or is corrupt).`);
    const wire = tag % 8;
    if (wire !== 0 && wire !== 1 && wire !== 2 && wire !== 5) {
      throw new PprofFormatError(`Not a readable pprof profile: the field at byte ${start} has wire type ${wire}, which pprof never uses (the file is not a pprof profile or is corrupt).`);
    }
    return [Math.floor(tag / 8), wire];
  }

  /** A length-delimited field's bounds, checked against what is left. */
  span(fieldStart: number): [number, number] {
    const size = this.varint();
    if (this.pos + size > this.end) {
      truncated(`the field at byte ${fieldStart} claims ${size} bytes but only ${this.end - this.pos} are left`);
    }
    const start = this.pos;
    this.pos += size;
    return [start, this.pos];
  }

  skip(wire: number, fieldStart: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) this.span(fieldStart);
    else {
      const n = wire === 1 ? 8 : 4;
      if (this.pos + n > this.end) truncated(`the field at byte ${fieldStart} claims ${n} bytes but only ${this.end - this.pos} are left`);
      this.pos += n;
    }
  }

  /** A repeated number field, packed (wire type 2) or one at a time (0), appended to `out`. */
  numbers(wire: number, fieldStart: number, out: number[], signed: boolean): void {
    if (wire === 0) {
      out.push(signed ? this.int64() : this.varint());
      return;
    }
    if (wire !== 2) {
      this.skip(wire, fieldStart);
      return;
    }
    const [start, end] = this.span(fieldStart);
    // The bulk of a large profile: varints read inline, one-byte ones (ids below 128) fastest.
    const bytes = this.bytes;
    let q = start;
    while (q < end) {
      const b = bytes[q];
      if (b < 0x80) {
        out.push(b);
        q++;
        continue;
      }
      let value = 0;
      let scale = 1;
      let i = 0;
      for (; i < 10; i++) {
        if (q >= end) truncated(`it ends inside a number at byte ${q}`);
        const c = bytes[q++];
        value += (c & 0x7f) * scale;
        scale *= 128;
        if ((c & 0x80) === 0) break;
      }
      if (i === 10) throw new PprofFormatError(`Not a readable pprof profile: the number before byte ${q} is longer than 10 bytes (the file is corrupt).`);
      out.push(signed && value >= TWO_POW_63 ? value - TWO_POW_64 : value);
    }
  }
}

function truncated(what: string): never {
  throw new PprofFormatError(`Not a readable pprof profile: ${what} (the file is truncated).`);
}

/** Visits each field of the message in [start, end): `field` returns true when it read the value itself. */
function fields(bytes: Uint8Array, start: number, end: number, field: (r: Reader, number: number, wire: number, at: number) => boolean): void {
  const r = new Reader(bytes, start, end);
  while (r.more) {
    const at = r.pos;
    const [n, wire] = r.tag();
    if (!field(r, n, wire, at)) r.skip(wire, at);
  }
}

function valueType(bytes: Uint8Array, [start, end]: [number, number]): ValueTypeRec {
  const v: ValueTypeRec = { type: 0, unit: 0 };
  fields(bytes, start, end, (r, n, wire) => {
    if (wire !== 0) return false;
    if (n === 1) v.type = r.varint();
    else if (n === 2) v.unit = r.varint();
    else return false;
    return true;
  });
  return v;
}

/** Reads everything but the samples, and where each sample is. Throws PprofFormatError. */
export function readPprof(bytes: Uint8Array): PprofProfile {
  const p: PprofProfile = {
    sampleTypes: [], strings: [], functions: [], locations: [], mappings: [], timeNanos: 0n,
    periodType: undefined, period: 0, comments: [], defaultSampleType: 0, sampleSpans: [],
  };
  const utf8 = new TextDecoder('utf-8');
  fields(bytes, 0, bytes.length, (r, n, wire, at) => {
    if (wire === 2) {
      const span = r.span(at);
      switch (n) {
        case 1: p.sampleTypes.push(valueType(bytes, span)); break;
        case 2: p.sampleSpans.push(span[0], span[1]); break;
        case 3: p.mappings.push(mapping(bytes, span)); break;
        case 4: p.locations.push(location(bytes, span)); break;
        case 5: p.functions.push(fn(bytes, span)); break;
        case 6: p.strings.push(utf8.decode(bytes.subarray(span[0], span[1]))); break;
        case 11: p.periodType = valueType(bytes, span); break;
        case 13: {
          const inner = new Reader(bytes, span[0], span[1]);
          while (inner.more) p.comments.push(inner.varint());
          break;
        }
        default: break;
      }
      return true;
    }
    if (wire !== 0) return false;
    switch (n) {
      case 9: p.timeNanos = r.bigVarint(); return true;
      case 12: p.period = r.int64(); return true;
      case 13: p.comments.push(r.varint()); return true;
      case 14: p.defaultSampleType = r.varint(); return true;
      default: return false;
    }
  });
  return p;
}

function mapping(bytes: Uint8Array, [start, end]: [number, number]): MappingRec {
  const m: MappingRec = { id: 0, filename: 0 };
  fields(bytes, start, end, (r, n, wire) => {
    if (wire !== 0) return false;
    if (n === 1) m.id = r.varint();
    else if (n === 5) m.filename = r.varint();
    else return false;
    return true;
  });
  return m;
}

function fn(bytes: Uint8Array, [start, end]: [number, number]): FunctionRec {
  const f: FunctionRec = { id: 0, name: 0, systemName: 0, filename: 0 };
  fields(bytes, start, end, (r, n, wire) => {
    if (wire !== 0) return false;
    if (n === 1) f.id = r.varint();
    else if (n === 2) f.name = r.varint();
    else if (n === 3) f.systemName = r.varint();
    else if (n === 4) f.filename = r.varint();
    else return false;
    return true;
  });
  return f;
}

function location(bytes: Uint8Array, [start, end]: [number, number]): LocationRec {
  const l: LocationRec = { id: 0, mappingId: 0, address: 0n, functionIds: [] };
  fields(bytes, start, end, (r, n, wire, at) => {
    if (n === 4 && wire === 2) {
      const [ls, le] = r.span(at);
      let functionId = 0;
      fields(bytes, ls, le, (lr, ln, lw) => {
        if (ln !== 1 || lw !== 0) return false;
        functionId = lr.varint();
        return true;
      });
      l.functionIds.push(functionId);
      return true;
    }
    if (wire !== 0) return false;
    if (n === 1) l.id = r.varint();
    else if (n === 2) l.mappingId = r.varint();
    else if (n === 3) l.address = BigInt.asUintN(64, r.bigVarint());
    else return false;
    return true;
  });
  return l;
}

/** Decodes sample `i` (of p.sampleSpans) into `into`, reusing its arrays; `valuesOnly` leaves its locations and labels out. */
export function readSample(bytes: Uint8Array, p: PprofProfile, i: number, into: SampleRec, valuesOnly = false): SampleRec {
  into.locationIds.length = 0;
  into.values.length = 0;
  into.labels.length = 0;
  fields(bytes, p.sampleSpans[2 * i], p.sampleSpans[2 * i + 1], (r, n, wire, at) => {
    if (valuesOnly && n !== 2) return false;
    if (n === 1) r.numbers(wire, at, into.locationIds, false);
    else if (n === 2) r.numbers(wire, at, into.values, true);
    else if (n === 3 && wire === 2) {
      const [ls, le] = r.span(at);
      const label: LabelRec = { key: 0, str: 0, num: 0 };
      fields(bytes, ls, le, (lr, ln, lw) => {
        if (lw !== 0) return false;
        if (ln === 1) label.key = lr.varint();
        else if (ln === 2) label.str = lr.varint();
        else if (ln === 3) label.num = lr.int64();
        else return false;
        return true;
      });
      into.labels.push(label);
    } else return false;
    return true;
  });
  return into;
}

export function sampleCount(p: PprofProfile): number {
  return p.sampleSpans.length / 2;
}
