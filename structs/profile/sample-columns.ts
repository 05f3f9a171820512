// Samples stored column by column in typed arrays: 33 bytes a sample, no object per sample,
// and a view can scan one column (say cpuNs) without touching the others.

/** Bytes one sample takes across all columns (mono 8, threadId 4, stackId 4, cpuNs 8, wallNs 8, flags 1). */
export const BYTES_PER_SAMPLE_SLOT = 33;

export interface SampleColumnViews {
  readonly mono: Float64Array;
  readonly threadId: Uint32Array;
  readonly stackId: Uint32Array;
  readonly cpuNs: Float64Array;
  readonly wallNs: Float64Array;
  readonly flags: Uint8Array;
}

export class SampleColumns {
  mono: Float64Array;
  threadId: Uint32Array;
  stackId: Uint32Array;
  cpuNs: Float64Array;
  wallNs: Float64Array;
  flags: Uint8Array;
  count = 0;

  constructor(capacity = 1024) {
    this.mono = new Float64Array(capacity);
    this.threadId = new Uint32Array(capacity);
    this.stackId = new Uint32Array(capacity);
    this.cpuNs = new Float64Array(capacity);
    this.wallNs = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  get capacity(): number {
    return this.flags.length;
  }

  append(mono: number, threadId: number, stackId: number, cpuNs: number, wallNs: number, flags: number): void {
    const i = this.count;
    if (i === this.flags.length) this.grow();
    this.mono[i] = mono;
    this.threadId[i] = threadId;
    this.stackId[i] = stackId;
    this.cpuNs[i] = cpuNs;
    this.wallNs[i] = wallNs;
    this.flags[i] = flags;
    this.count = i + 1;
  }

  /** append() with the u64s in `values` ([mono, cpuNs, wallNs]): doubles in a typed array are never boxed on the way. */
  appendValues(threadId: number, stackId: number, flags: number, values: Float64Array): void {
    const i = this.count;
    if (i === this.flags.length) this.grow();
    this.mono[i] = values[0];
    this.threadId[i] = threadId;
    this.stackId[i] = stackId;
    this.cpuNs[i] = values[1];
    this.wallNs[i] = values[2];
    this.flags[i] = flags;
    this.count = i + 1;
  }

  /** Views of the filled part; valid until the next append (growth replaces the arrays). */
  views(): SampleColumnViews {
    const n = this.count;
    return {
      mono: this.mono.subarray(0, n),
      threadId: this.threadId.subarray(0, n),
      stackId: this.stackId.subarray(0, n),
      cpuNs: this.cpuNs.subarray(0, n),
      wallNs: this.wallNs.subarray(0, n),
      flags: this.flags.subarray(0, n),
    };
  }

  byteSize(): number {
    return this.capacity * BYTES_PER_SAMPLE_SLOT;
  }

  /**
   * Keeps only the samples taken at or after `cutMono`, in their order, moved to the front in
   * place; `moved(from, to)` hears each kept sample whose index changed. Returns how many went.
   */
  retainFrom(cutMono: number, moved?: (from: number, to: number) => void): number {
    const n = this.count;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if (!(this.mono[i] >= cutMono)) continue;
      if (kept !== i) {
        this.mono[kept] = this.mono[i];
        this.threadId[kept] = this.threadId[i];
        this.stackId[kept] = this.stackId[i];
        this.cpuNs[kept] = this.cpuNs[i];
        this.wallNs[kept] = this.wallNs[i];
        this.flags[kept] = this.flags[i];
        moved?.(i, kept);
      }
      kept++;
    }
    this.count = kept;
    return n - kept;
  }

  /** Reallocates the columns to `capacity` slots (at least the samples held): capacity left by growth goes back. */
  resize(capacity: number): void {
    const size = Math.max(this.count, Math.ceil(capacity));
    if (size === this.capacity) return;
    const n = this.count;
    const mono = new Float64Array(size); mono.set(this.mono.subarray(0, n)); this.mono = mono;
    const threadId = new Uint32Array(size); threadId.set(this.threadId.subarray(0, n)); this.threadId = threadId;
    const stackId = new Uint32Array(size); stackId.set(this.stackId.subarray(0, n)); this.stackId = stackId;
    const cpuNs = new Float64Array(size); cpuNs.set(this.cpuNs.subarray(0, n)); this.cpuNs = cpuNs;
    const wallNs = new Float64Array(size); wallNs.set(this.wallNs.subarray(0, n)); this.wallNs = wallNs;
    const flags = new Uint8Array(size); flags.set(this.flags.subarray(0, n)); this.flags = flags;
  }

  // Doubling keeps appends amortized O(1) at the price of up to half the capacity unused.
  private grow(): void {
    const size = Math.max(1024, this.flags.length * 2);
    const mono = new Float64Array(size); mono.set(this.mono); this.mono = mono;
    const threadId = new Uint32Array(size); threadId.set(this.threadId); this.threadId = threadId;
    const stackId = new Uint32Array(size); stackId.set(this.stackId); this.stackId = stackId;
    const cpuNs = new Float64Array(size); cpuNs.set(this.cpuNs); this.cpuNs = cpuNs;
    const wallNs = new Float64Array(size); wallNs.set(this.wallNs); this.wallNs = wallNs;
    const flags = new Uint8Array(size); flags.set(this.flags); this.flags = flags;
  }
}
