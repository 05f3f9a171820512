// Keeps the worker's copy of a session's stream exactly the bytes 0..n in order. The main
// process may deliver a chunk twice (live and again in the replay a subscribe asks for) or
// deliver live chunks before the replay reaches them; offsets say which bytes are new.

export type FeedResult =
  /** Bytes to hand on (possibly the tail of the chunk), starting at `offset`. */
  | { kind: 'bytes'; offset: number; bytes: Uint8Array }
  /** Nothing new in it. */
  | { kind: 'duplicate' }
  /** It starts after the last byte we have: something between was lost. */
  | { kind: 'gap'; expected: number; got: number };

export class StreamFeeder {
  private next = 0;

  /** Bytes handed on so far. */
  get position(): number {
    return this.next;
  }

  reset(): void {
    this.next = 0;
  }

  accept(offset: number, chunk: Uint8Array): FeedResult {
    const end = offset + chunk.byteLength;
    if (end <= this.next) return { kind: 'duplicate' };
    if (offset > this.next) return { kind: 'gap', expected: this.next, got: offset };
    const bytes = offset === this.next ? chunk : chunk.subarray(this.next - offset);
    const at = this.next;
    this.next = end;
    return { kind: 'bytes', offset: at, bytes };
  }
}
