// Object addresses to node indexes for the heap walk's reader (structs/heap/heap-walk-reader.ts):
// references and roots name objects by address, the snapshot by index.

const TWO_32 = 4294967296;

/** Open-addressing map from object address to node index over typed arrays. */
export class AddressIndex {
  private readonly keys: Float64Array;
  private readonly values: Int32Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(addresses: Float64Array, count: number) {
    let bits = 4;
    while (1 << bits < count * 1.5) bits++;
    this.keys = new Float64Array(1 << bits);
    this.values = new Int32Array(1 << bits);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
    for (let i = 0; i < count; i++) {
      const a = addresses[i];
      if (a === 0) continue;
      let h = this.slot(a);
      while (this.keys[h] !== 0 && this.keys[h] !== a) h = (h + 1) & this.mask;
      // A second object at one address would be corruption; the first one stays.
      if (this.keys[h] === 0) {
        this.keys[h] = a;
        this.values[h] = i;
      }
    }
  }

  private slot(a: number): number {
    const k = a / 8;
    const lo = k >>> 0;
    const hi = (k / TWO_32) >>> 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }

  /** The node at this address, or -1. */
  get(a: number): number {
    if (a === 0) return -1;
    let h = this.slot(a);
    for (;;) {
      const k = this.keys[h];
      if (k === a) return this.values[h];
      if (k === 0) return -1;
      h = (h + 1) & this.mask;
    }
  }
}
