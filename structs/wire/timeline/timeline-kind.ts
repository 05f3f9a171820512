// A timeline event kind described once: a record with a time span of its own (a GC pause, later
// a thread-pool event or an HTTP request), shown on a timeline rather than folded into stacks.
// Its descriptor is data (the wire record's type and fields in order, what each field refers to,
// when the record began and ended), so the decoder, the encoder, the recording's columns, the
// merge of several processes and the text dump each read it instead of keeping a case per kind.
// It lives at the wire layer because the decoder must find it; everything it says about the
// model is said over the record's own fields, so nothing here looks up into structs/profile.

/** How a field is laid out on the wire: little-endian, fixed width (PROTOCOL.md, Encoding). */
export type TimelineFieldType = 'u8' | 'i8' | 'u16' | 'u32' | 'u64';

export interface TimelineField<R> {
  /** The record's property; every field of a timeline record is a number. */
  readonly key: keyof R & string;
  readonly type: TimelineFieldType;
  /**
   * What the number names, when it names something: a THREAD or a STRING id, which the sink checks
   * was defined, or a request's seq (REQUEST_SAMPLES marks samples with it before the REQUEST is
   * sent, so it is no reference to a record before it and is not checked). A merge of several
   * processes renumbers each. 0 names nothing. A process (its pid) is written by such a merge
   * alone, for a record that has no thread to say whose it is: 0 there is the stream's own process,
   * which the merge replaces with the pid of the process it came from.
   */
  readonly ref?: 'thread' | 'string' | 'request' | 'process';
  /** Its word in a recording's text dump; the key when absent. */
  readonly dumpAs?: string;
  /**
   * A field a later revision appended: older writers' bodies end before it, and it reads as 0
   * there. Only trailing fields may be optional, so a body is the fields up to some optional one.
   */
  readonly optional?: true;
}

/** A record of any timeline kind, as generic code (the store, the merge) sees it. */
export type TimelineRecord = Readonly<Record<string, number>>;

export interface TimelineKind<R extends object = TimelineRecord> {
  /** The record's name in sentences ("the SUSPENSION record at byte ..."). */
  readonly name: string;
  /** Its RecordType (records.ts). */
  readonly recordType: number;
  /**
   * Its fields in wire order; a body may be longer (a later revision appends fields), and shorter
   * only by trailing optional fields.
   */
  readonly fields: readonly TimelineField<R>[];
  /** The field that says when it began (target mono ns): a kept window keeps what began at or after its cut. */
  readonly startField: keyof R & string;
  /** When it ended, which is when a writer sends it: where it sits in a stream and in a merged recording. */
  end(record: R): number;
  /** The first word of its lines in a recording's text dump. */
  readonly dumpName: string;
  /**
   * For a kind that older writers used for records that now have a kind of their own (with the
   * same fields): that kind for such a record, undefined for the kind's own. The decoder asks it of
   * every record, so everything past the decoder sees each record under its own kind.
   */
  readonly belongsTo?: (record: R) => TimelineKind | undefined;
}

const FIELD_BYTES: Record<TimelineFieldType, number> = { u8: 1, i8: 1, u16: 2, u32: 4, u64: 8 };

/** The bytes of a body with every field of the kind (what a writer writes). */
export function timelineBodySize<R extends object>(kind: TimelineKind<R>): number {
  let size = 0;
  for (const f of kind.fields) size += FIELD_BYTES[f.type];
  return size;
}

/** The bytes of a body without its optional fields (an older writer's, the least a reader accepts). */
export function timelineMinBodySize<R extends object>(kind: TimelineKind<R>): number {
  let size = 0;
  for (const f of kind.fields) if (f.optional !== true) size += FIELD_BYTES[f.type];
  return size;
}

/** A field's width on the wire. */
export function timelineFieldBytes(type: TimelineFieldType): number {
  return FIELD_BYTES[type];
}

/** A field's value in a record of the kind. */
export function timelineValue<R extends object>(record: R, field: TimelineField<R>): number {
  return record[field.key] as number;
}

/** One line of a recording's text dump: the kind's name, then each field's word and value. */
export function timelineDumpLine<R extends object>(kind: TimelineKind<R>, record: R): string {
  return `${kind.dumpName}: ${kind.fields.map((f) => `${f.dumpAs ?? f.key} ${timelineValue(record, f)}`).join(' ')}`;
}

/** The kind as the registry and generic code hold it: its records' fields are all numbers, so they are TimelineRecords. */
export function genericTimelineKind<R extends object>(kind: TimelineKind<R>): TimelineKind {
  return kind as unknown as TimelineKind;
}
