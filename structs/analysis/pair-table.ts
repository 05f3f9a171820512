// Interns pairs of int32s to dense indexes (0, 1, 2, ... in order of first appearance). Sums
// per (stack, thread) are looked up once per sample when a dense stack x thread matrix would
// be too large; a Map with a string or object key per pair would allocate or hash a string
// each time, while this open-addressing table (linear probing, load <= 1/2) over typed
// arrays costs two integer multiplies and usually one probe.

const INITIAL_SLOTS = 1 << 10;

function hashPair(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}

export class PairTable {
  /** first[i], second[i]: the pair interned as index i (capacity may exceed size). */
  first: Int32Array;
  second: Int32Array;
  private slots: Int32Array;
  private mask: number;
  private n = 0;

  constructor(expected = 256) {
    let slots = INITIAL_SLOTS;
    while (slots < expected * 2) slots *= 2;
    this.slots = new Int32Array(slots);
    this.mask = slots - 1;
    this.first = new Int32Array(Math.max(16, expected));
    this.second = new Int32Array(Math.max(16, expected));
  }

  get size(): number {
    return this.n;
  }

  /** Index of (a, b), adding it when new. Callers detect "new" by comparing with `size` before the call. */
  intern(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let slot = hashPair(a, b) & mask;
    for (;;) {
      const entry = slots[slot];
      if (entry === 0) break;
      const i = entry - 1;
      if (this.first[i] === a && this.second[i] === b) return i;
      slot = (slot + 1) & mask;
    }
    return this.insert(a, b, slot);
  }

  /** Index of (a, b), or -1. */
  find(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let slot = hashPair(a, b) & mask;
    for (;;) {
      const entry = slots[slot];
      if (entry === 0) return -1;
      const i = entry - 1;
      if (this.first[i] === a && this.second[i] === b) return i;
      slot = (slot + 1) & mask;
    }
  }

  private insert(a: number, b: number, slot: number): number {
    const i = this.n;
    if (i === this.first.length) {
      this.first = growInt32(this.first);
      this.second = growInt32(this.second);
    }
    this.first[i] = a;
    this.second[i] = b;
    this.slots[slot] = i + 1;
    this.n = i + 1;
    if (this.n * 2 > this.slots.length) this.rehash();
    return i;
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let i = 0; i < this.n; i++) {
      let slot = hashPair(this.first[i], this.second[i]) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

export function growInt32(a: Int32Array, need = a.length + 1): Int32Array<ArrayBuffer> {
  let size = Math.max(16, a.length * 2);
  while (size < need) size *= 2;
  const grown = new Int32Array(size);
  grown.set(a);
  return grown;
}

export function growFloat64(a: Float64Array, need = a.length + 1): Float64Array<ArrayBuffer> {
  let size = Math.max(16, a.length * 2);
  while (size < need) size *= 2;
  const grown = new Float64Array(size);
  grown.set(a);
  return grown;
}
