// Which request each sample was taken in, as REQUEST_SAMPLES says (PROTOCOL.md): the request's
// seq per sample index. A seq is kept whether or not a REQUEST with it ever arrives (it is sent
// when the request ends, after its samples, or never when the writer dropped it), so the
// analysis (structs/analysis/requests.ts) decides what a seq no request has means. Most
// recordings have no marks at all, so the array is made at the first one.

export class RequestMarks {
  // Seq per sample index (0: none), grown on demand.
  private perSample: Uint32Array | undefined;

  /** Sample `index` was taken in request `seq` (not 0). */
  set(index: number, seq: number): void {
    let per = this.perSample;
    if (per === undefined || index >= per.length) {
      let size = per === undefined ? 1024 : per.length * 2;
      while (size <= index) size *= 2;
      const grown = new Uint32Array(size);
      if (per !== undefined) grown.set(per);
      per = grown;
      this.perSample = grown;
    }
    per[index] = seq;
  }

  /** The seq of the request sample `index` was taken in, 0 for none. */
  seqOf(index: number): number {
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
