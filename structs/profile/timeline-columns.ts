// The records of the timeline kinds (structs/wire/timeline/) a recording holds, column by column
// as the kind's descriptor lays them out: one typed array per field, so a kind with many records
// (requests) costs its fields' bytes and no object each. Readers that want records (the pauses
// table, exports) get frozen ones, made once per record and kept until the columns change.

import type { TimelineFieldType, TimelineKind, TimelineRecord } from '../wire/timeline/timeline-kind.js';

type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array | Int8Array;

/** A kind's columns by field key, each as long as the records held; valid until the next record arrives. */
export type TimelineColumnViews = Readonly<Record<string, Float64Array | Uint32Array | Uint16Array | Uint8Array | Int8Array>>;

function column(type: TimelineFieldType, size: number): Column {
  switch (type) {
    case 'u64': return new Float64Array(size);
    case 'u32': return new Uint32Array(size);
    case 'u16': return new Uint16Array(size);
    case 'u8': return new Uint8Array(size);
    case 'i8': return new Int8Array(size);
  }
}

/** One kind's records. */
class KindColumns {
  readonly kind: TimelineKind;
  columns: Column[];
  count = 0;
  // Frozen records made so far, in order: records() adds only the ones since.
  private built: TimelineRecord[] = [];

  constructor(kind: TimelineKind) {
    this.kind = kind;
    this.columns = kind.fields.map((f) => column(f.type, 0));
  }

  append(record: TimelineRecord): void {
    const i = this.count;
    if (i === (this.columns[0]?.length ?? 0)) this.grow();
    const fields = this.kind.fields;
    for (let f = 0; f < fields.length; f++) this.columns[f][i] = record[fields[f].key];
    this.count = i + 1;
  }

  records(): readonly TimelineRecord[] {
    const fields = this.kind.fields;
    for (let i = this.built.length; i < this.count; i++) {
      const r: Record<string, number> = {};
      for (let f = 0; f < fields.length; f++) r[fields[f].key] = this.columns[f][i];
      this.built.push(Object.freeze(r));
    }
    return this.built;
  }

  views(): TimelineColumnViews {
    const out: Record<string, Column> = {};
    this.kind.fields.forEach((f, i) => { out[f.key] = this.columns[i].subarray(0, this.count); });
    return out;
  }

  /** Keeps the records that began at or after `cutMono`, in order. */
  retainFrom(cutMono: number): void {
    const start = this.columns[this.kind.fields.findIndex((f) => f.key === this.kind.startField)];
    let kept = 0;
    for (let i = 0; i < this.count; i++) {
      if (!(start[i] >= cutMono)) continue;
      if (kept !== i) for (const c of this.columns) c[kept] = c[i];
      kept++;
    }
    if (kept !== this.count) this.built = [];
    this.count = kept;
  }

  byteSize(): number {
    let size = 0;
    for (const c of this.columns) size += c.byteLength;
    return size;
  }

  private grow(): void {
    const size = Math.max(64, 2 * (this.columns[0]?.length ?? 0));
    this.columns = this.columns.map((c, f) => {
      const grown = column(this.kind.fields[f].type, size);
      grown.set(c);
      return grown;
    });
  }
}

/** Every timeline kind's records of one recording; a kind without records holds nothing. */
export class TimelineColumns {
  private readonly byKind = new Map<TimelineKind, KindColumns>();

  append(kind: TimelineKind, record: TimelineRecord): void {
    let k = this.byKind.get(kind);
    if (k === undefined) {
      k = new KindColumns(kind);
      this.byKind.set(kind, k);
    }
    k.append(record);
  }

  count(kind: TimelineKind): number {
    return this.byKind.get(kind)?.count ?? 0;
  }

  records(kind: TimelineKind): readonly TimelineRecord[] {
    return this.byKind.get(kind)?.records() ?? [];
  }

  views(kind: TimelineKind): TimelineColumnViews {
    const k = this.byKind.get(kind);
    if (k !== undefined) return k.views();
    const out: Record<string, Column> = {};
    for (const f of kind.fields) out[f.key] = column(f.type, 0);
    return out;
  }

  retainFrom(cutMono: number): void {
    for (const k of this.byKind.values()) k.retainFrom(cutMono);
  }

  byteSize(): number {
    let size = 0;
    for (const k of this.byKind.values()) size += k.byteSize();
    return size;
  }
}
