// The v2 coding state that spans records (PROTOCOL.md, "SAMPLES"): the previous sample's thread
// and time for the whole stream, and per thread its previous stack and the time of its previous
// wall sample. Writer and reader keep the same state and change it at the same records, so the
// encoder (encoder.ts) and the decoder (decoder.ts) share this class.
//
// Times are u64 nanoseconds of CLOCK_MONOTONIC, which passes 2^53 after 104 days of uptime; a
// double then cannot hold every value, and adding deltas to a rounded double would drift. So
// times are kept as two exact halves (hi * 2^32 + lo) and only the value handed out is rounded.

/** Thread ids below this index the state arrays directly; larger ones go through a map. */
const DIRECT_IDS = 1 << 16;
export const TWO_POW_32 = 4294967296;

export class SampleState {
  /**
   * The previous sample's time as [hi, lo] (hi * 2^32 + lo), then the previous event's: events
   * are coded against each other, not against samples. All 0 before the first. A typed array,
   * not fields: a double stored in an object field may be boxed, an allocation per sample.
   */
  readonly times = new Float64Array(4);
  /** The previous sample's thread, and the previous event's. */
  thread = 0;
  eventThread = 0;
  /** Per slot: the thread's previous stack id (0: none). */
  stack = new Int32Array(64);
  /** Per slot: the time of the thread's previous wall sample (hi, lo), when hasWall is 1. */
  wallHi = new Float64Array(64);
  wallLo = new Float64Array(64);
  hasWall = new Uint8Array(64);
  private readonly large = new Map<number, number>();
  private nextLarge = DIRECT_IDS;

  /** The state slot of a thread (writer thread ids are small and dense; others are mapped). */
  slotOf(threadId: number): number {
    let slot = threadId;
    if (threadId >= DIRECT_IDS) {
      const known = this.large.get(threadId);
      if (known === undefined) {
        slot = this.nextLarge++;
        this.large.set(threadId, slot);
      } else slot = known;
    }
    if (slot >= this.stack.length) this.grow(slot + 1);
    return slot;
  }

  /** THREAD_END: the thread starts again from no state (a sample after its end codes everything). */
  forgetThread(threadId: number): void {
    const slot = threadId >= DIRECT_IDS ? this.large.get(threadId) : threadId;
    if (slot === undefined || slot >= this.stack.length) return;
    this.stack[slot] = 0;
    this.hasWall[slot] = 0;
  }

  /** STACK_RESET: no thread has a previous stack any more. */
  forgetStacks(): void {
    this.stack.fill(0);
  }

  /** A copy: a writer that takes over a stream another wrote carries on from the reader's state. */
  clone(): SampleState {
    const copy = new SampleState();
    copy.times.set(this.times);
    copy.thread = this.thread;
    copy.eventThread = this.eventThread;
    copy.stack = this.stack.slice();
    copy.wallHi = this.wallHi.slice();
    copy.wallLo = this.wallLo.slice();
    copy.hasWall = this.hasWall.slice();
    for (const [id, slot] of this.large) copy.large.set(id, slot);
    copy.nextLarge = this.nextLarge;
    return copy;
  }

  private grow(need: number): void {
    let size = this.stack.length * 2;
    while (size < need) size *= 2;
    const stack = new Int32Array(size);
    stack.set(this.stack);
    this.stack = stack;
    const wallHi = new Float64Array(size);
    wallHi.set(this.wallHi);
    this.wallHi = wallHi;
    const wallLo = new Float64Array(size);
    wallLo.set(this.wallLo);
    this.wallLo = wallLo;
    const hasWall = new Uint8Array(size);
    hasWall.set(this.hasWall);
    this.hasWall = hasWall;
  }
}
