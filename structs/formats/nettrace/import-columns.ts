// Samples of an import held column by column until the file's rundown (at its end) names the
// code their stacks point into: 17 bytes a sample, no object per sample.

export class ImportColumns {
  timestamp = new Float64Array(1024);
  thread = new Uint32Array(1024);
  stack = new Uint32Array(1024);
  type = new Uint8Array(1024);
  count = 0;

  append(timestamp: number, thread: number, stack: number, type: number): void {
    const i = this.count;
    if (i === this.type.length) this.grow();
    this.timestamp[i] = timestamp;
    this.thread[i] = thread;
    this.stack[i] = stack;
    this.type[i] = type;
    this.count = i + 1;
  }

  /** Indexes in time order, or undefined when the samples already are. */
  timeOrder(): Uint32Array | undefined {
    const ts = this.timestamp;
    const n = this.count;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = ts[i] >= ts[i - 1];
    if (sorted) return undefined;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    return order.sort((a, b) => ts[a] - ts[b] || a - b);
  }

  private grow(): void {
    const size = this.type.length * 2;
    const timestamp = new Float64Array(size); timestamp.set(this.timestamp); this.timestamp = timestamp;
    const thread = new Uint32Array(size); thread.set(this.thread); this.thread = thread;
    const stack = new Uint32Array(size); stack.set(this.stack); this.stack = stack;
    const type = new Uint8Array(size); type.set(this.type); this.type = type;
  }
}
