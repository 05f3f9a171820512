// Event samples (wire v2 EVENTS: allocations, lock contention, exceptions) stored column by
// column, like SampleColumns: no object per event.

export interface EventColumnViews {
  /** EventKind. */
  readonly kind: Uint8Array;
  /** EventFlags as received (HasValue2, HasStack, HasLabel). */
  readonly flags: Uint8Array;
  readonly mono: Float64Array;
  readonly threadId: Uint32Array;
  /** The recording's stack id, -1 for none. */
  readonly stackId: Int32Array;
  /** A string id (Recording.string), 0 for none. */
  readonly labelId: Uint32Array;
  readonly value1: Float64Array;
  readonly value2: Float64Array;
  /** A string id (Recording.string): the event's message (an exception's, from EVENT_MESSAGES), 0 for none. */
  readonly messageId: Uint32Array;
}

export class EventColumns {
  kind = new Uint8Array(0);
  flags = new Uint8Array(0);
  mono = new Float64Array(0);
  threadId = new Uint32Array(0);
  stackId = new Int32Array(0);
  labelId = new Uint32Array(0);
  value1 = new Float64Array(0);
  value2 = new Float64Array(0);
  messageId = new Uint32Array(0);
  count = 0;

  append(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void {
    const i = this.count;
    if (i === this.kind.length) this.grow();
    this.kind[i] = kind;
    this.flags[i] = flags;
    this.mono[i] = mono;
    this.threadId[i] = threadId;
    this.stackId[i] = stackId;
    this.labelId[i] = labelId;
    this.value1[i] = value1;
    this.value2[i] = value2;
    this.messageId[i] = 0;
    this.count = i + 1;
  }

  /** Gives the event `back` events before the end (1: the latest) its message. False when there is no such event. */
  setMessage(back: number, messageId: number): boolean {
    const i = this.count - back;
    if (back < 1 || i < 0) return false;
    this.messageId[i] = messageId;
    return true;
  }

  /** Views of the filled part; valid until the next append. */
  views(): EventColumnViews {
    const n = this.count;
    return {
      kind: this.kind.subarray(0, n),
      flags: this.flags.subarray(0, n),
      mono: this.mono.subarray(0, n),
      threadId: this.threadId.subarray(0, n),
      stackId: this.stackId.subarray(0, n),
      labelId: this.labelId.subarray(0, n),
      value1: this.value1.subarray(0, n),
      value2: this.value2.subarray(0, n),
      messageId: this.messageId.subarray(0, n),
    };
  }

  byteSize(): number {
    return this.kind.length * (1 + 1 + 8 + 4 + 4 + 4 + 8 + 8 + 4);
  }

  /** Keeps only the events taken at or after `cutMono`, in their order, moved to the front in place. */
  retainFrom(cutMono: number): void {
    let kept = 0;
    for (let i = 0; i < this.count; i++) {
      if (!(this.mono[i] >= cutMono)) continue;
      if (kept !== i) {
        this.kind[kept] = this.kind[i];
        this.flags[kept] = this.flags[i];
        this.mono[kept] = this.mono[i];
        this.threadId[kept] = this.threadId[i];
        this.stackId[kept] = this.stackId[i];
        this.labelId[kept] = this.labelId[i];
        this.value1[kept] = this.value1[i];
        this.value2[kept] = this.value2[i];
        this.messageId[kept] = this.messageId[i];
      }
      kept++;
    }
    this.count = kept;
  }

  // Most recordings have no events, so nothing is allocated before the first.
  private grow(): void {
    const size = Math.max(256, this.kind.length * 2);
    const kind = new Uint8Array(size); kind.set(this.kind); this.kind = kind;
    const flags = new Uint8Array(size); flags.set(this.flags); this.flags = flags;
    const mono = new Float64Array(size); mono.set(this.mono); this.mono = mono;
    const threadId = new Uint32Array(size); threadId.set(this.threadId); this.threadId = threadId;
    const stackId = new Int32Array(size); stackId.set(this.stackId); this.stackId = stackId;
    const labelId = new Uint32Array(size); labelId.set(this.labelId); this.labelId = labelId;
    const value1 = new Float64Array(size); value1.set(this.value1); this.value1 = value1;
    const value2 = new Float64Array(size); value2.set(this.value2); this.value2 = value2;
    const messageId = new Uint32Array(size); messageId.set(this.messageId); this.messageId = messageId;
  }
}
