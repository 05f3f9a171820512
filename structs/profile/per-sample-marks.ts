// A number per sample index that few recordings have at all: the async chain a sample ran in
// (TASK_SAMPLES, async-chains.ts), the request it was taken in (REQUEST_SAMPLES: the request's
// seq, kept whether or not a REQUEST with it ever arrives, which structs/analysis/requests.ts
// decides about). The array is made at the first mark and grows on demand.

export class PerSampleMarks {
  // The mark per sample index (0: none).
  private perSample: Uint32Array | undefined;

  /** Sample `index` has mark `value` (not 0). */
  set(index: number, value: number): void {
    let per = this.perSample;
    if (per === undefined || index >= per.length) {
      let size = per === undefined ? 1024 : per.length * 2;
      while (size <= index) size *= 2;
      const grown = new Uint32Array(size);
      if (per !== undefined) grown.set(per);
      per = grown;
      this.perSample = grown;
    }
    per[index] = value;
  }

  /** Sample `index`'s mark, 0 for none. */
  of(index: number): number {
    const per = this.perSample;
    return per !== undefined && index < per.length ? per[index] : 0;
  }

  /** Whether any sample was marked. */
  get hasMarks(): boolean {
    return this.perSample !== undefined;
  }

  /** Sample `from` is now sample `to` (to < from: samples before it were dropped); clearFrom() then clears the tail. */
  moveMark(from: number, to: number): void {
    const per = this.perSample;
    if (per !== undefined && to < per.length) per[to] = from < per.length ? per[from] : 0;
  }

  /** Clears the marks of sample indexes from `count` on (dropped samples whose slots no sample took). */
  clearFrom(count: number): void {
    this.perSample?.fill(0, Math.min(count, this.perSample.length));
  }

  byteSize(): number {
    return this.perSample?.byteLength ?? 0;
  }
}
