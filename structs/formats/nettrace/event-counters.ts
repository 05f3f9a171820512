// EventCounters: the events an EventSource writes once per interval for each of its counters
// when a session enables it with "EventCounterIntervalSec=N" (System.Runtime's cpu-usage,
// gen-0-gc-count, …). They are self-describing: their metadata carries a V1 field list, which
// on .NET 10 is one unnamed object holding an object "Payload" with the counter's fields, in one
// of two shapes: mean counters (Name, DisplayName, Mean, StandardDeviation, Count, Min, Max,
// IntervalSec, Series, CounterType "Mean", Metadata, DisplayUnits) and incrementing counters
// (Name, DisplayName, DisplayRateTimeScale, Increment, IntervalSec, Metadata, Series,
// CounterType "Sum", DisplayUnits). The layout is read from the metadata, not assumed.

import type { SpanReader } from './span-reader.js';

/** System.TypeCode values a V1 field description uses. */
const TC = {
  Object: 1, Boolean: 3, Char: 4, SByte: 5, Byte: 6, Int16: 7, UInt16: 8, Int32: 9, UInt32: 10, Int64: 11, UInt64: 12,
  Single: 13, Double: 14, Decimal: 15, DateTime: 16, Guid: 17, String: 18,
} as const;

/** Bytes of each fixed-size type code in an EventPipe payload (Boolean is a 4-byte BOOL there). */
const FIXED_SIZE = new Map<number, number>([
  [TC.Boolean, 4], [TC.Char, 2], [TC.SByte, 1], [TC.Byte, 1], [TC.Int16, 2], [TC.UInt16, 2], [TC.Int32, 4], [TC.UInt32, 4],
  [TC.Int64, 8], [TC.UInt64, 8], [TC.Single, 4], [TC.Double, 8], [TC.Decimal, 16], [TC.DateTime, 8], [TC.Guid, 16],
]);

export interface FieldLayout {
  name: string;
  typeCode: number;
  /** For TypeCode Object: its fields. */
  fields?: FieldLayout[];
}

/** Nesting deeper than this is corruption, not data (EventCounters nest two levels). */
const MAX_DEPTH = 8;

/** The smallest field description: its i32 TypeCode and an empty name's UTF-16 terminator. */
const MIN_FIELD_BYTES = 6;

/** A V1 field list: i32 count, then per field i32 TypeCode, [fields if Object], string name. */
export function readFieldLayout(r: SpanReader, depth = 0): FieldLayout[] {
  const count = r.i32();
  // A count beyond what the bytes left could describe is corrupt.
  if (count < 0 || count > r.remaining / MIN_FIELD_BYTES || depth > MAX_DEPTH) return [];
  const fields: FieldLayout[] = [];
  for (let i = 0; i < count; i++) {
    const typeCode = r.i32();
    const nested = typeCode === TC.Object ? readFieldLayout(r, depth + 1) : undefined;
    fields.push({ name: r.utf16z(), typeCode, fields: nested });
  }
  return fields;
}

/** The counter fields of an EventCounters layout: the fields of the object named "Payload". */
export function counterFields(layout: readonly FieldLayout[]): FieldLayout[] | undefined {
  for (const f of layout) {
    if (f.typeCode !== TC.Object || f.fields === undefined) continue;
    if (f.name === 'Payload') return f.fields;
    const inner = counterFields(f.fields);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** One counter's value for one interval. */
export interface EventCounterValue {
  /** The EventSource, e.g. "System.Runtime". */
  provider: string;
  /** e.g. "gen-0-gc-count". */
  name: string;
  displayName: string;
  /** e.g. "B", "MB", "%", "ms"; empty when the counter has none. */
  displayUnits: string;
  /** 'mean': `value` is the mean over the interval (a level: heap size, thread count); 'sum': the increment during it (a rate: GCs, exceptions). */
  kind: 'mean' | 'sum';
  value: number;
  /** The interval the value covers, seconds. */
  intervalSec: number;
  /** When the runtime wrote it, in the trace's clock ticks. */
  timestamp: number;
}

type Scalar = number | string;

/** Reads the payload as `fields` describe it into `out`; false when a type code cannot be read. */
function readFields(r: SpanReader, fields: readonly FieldLayout[], out: Map<string, Scalar>, keep: boolean): boolean {
  for (const f of fields) {
    if (f.typeCode === TC.Object) {
      if (f.fields === undefined || !readFields(r, f.fields, out, keep || f.name === 'Payload')) return false;
      continue;
    }
    let value: Scalar | undefined;
    switch (f.typeCode) {
      case TC.String: value = r.utf16z(); break;
      case TC.Double: value = r.f64(); break;
      case TC.Single: value = r.f32(); break;
      case TC.Int32: value = r.i32(); break;
      case TC.UInt32: value = r.u32(); break;
      case TC.Int64: value = r.i64(); break;
      case TC.UInt64: value = r.u64(); break;
      default: {
        const size = FIXED_SIZE.get(f.typeCode);
        if (size === undefined) return false;
        r.skip(size);
      }
    }
    if (keep && value !== undefined) out.set(f.name, value);
  }
  return true;
}

/**
 * The counter in one EventCounters event whose payload `layout` describes; undefined when the
 * payload is not a counter clrscope can read (no name, no value).
 */
export function readEventCounter(r: SpanReader, layout: readonly FieldLayout[], provider: string, timestamp: number): EventCounterValue | undefined {
  const values = new Map<string, Scalar>();
  // Top-level fields are kept too when there is no "Payload" wrapper (an older runtime's shape).
  const wrapped = counterFields(layout) !== undefined;
  if (!readFields(r, layout, values, !wrapped)) return undefined;
  const name = values.get('Name');
  if (typeof name !== 'string' || name === '') return undefined;
  const text = (key: string): string => {
    const v = values.get(key);
    return typeof v === 'string' ? v : '';
  };
  const number = (key: string): number | undefined => {
    const v = values.get(key);
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const increment = number('Increment');
  const mean = number('Mean');
  const sum = text('CounterType') === 'Sum' || (increment !== undefined && mean === undefined);
  const value = sum ? increment : mean;
  if (value === undefined) return undefined;
  return {
    provider, name, displayName: text('DisplayName'), displayUnits: text('DisplayUnits'),
    kind: sum ? 'sum' : 'mean', value, intervalSec: number('IntervalSec') ?? 0, timestamp,
  };
}
