// Distinct stacks of an import, across the whole file. A file's stack ids restart after every
// sequence point, so each region's ids are mapped to indexes here, and equal stacks from
// different regions share one index.

export class StackInterner {
  /** Instruction pointers of every stack, back to back. */
  private pool = new Float64Array(4096);
  private poolLength = 0;
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  private readonly byHash = new Map<number, number | number[]>();

  constructor() {
    this.intern(new Float64Array(0), 0);
  }

  /** Index 0 is the empty stack (events without one). */
  static readonly EMPTY = 0;

  get count(): number {
    return this.starts.length;
  }

  /** Frames of every stack held, back to back. */
  get frameCount(): number {
    return this.poolLength;
  }

  frames(index: number): Float64Array {
    return this.pool.subarray(this.starts[index], this.starts[index] + this.lengths[index]);
  }

  /** The index of the first `length` values of `ips` when held, else -1. */
  find(ips: Float64Array, length: number): number {
    const found = this.byHash.get(hashOf(ips, length));
    if (found === undefined) return -1;
    if (typeof found === 'number') return this.equals(found, ips, length) ? found : -1;
    for (const index of found) if (this.equals(index, ips, length)) return index;
    return -1;
  }

  /** Interns the first `length` values of `ips`. */
  intern(ips: Float64Array, length: number): number {
    const hash = hashOf(ips, length);
    const found = this.byHash.get(hash);
    if (found !== undefined) {
      if (typeof found === 'number') {
        if (this.equals(found, ips, length)) return found;
      } else {
        for (const index of found) if (this.equals(index, ips, length)) return index;
      }
    }
    const index = this.starts.length;
    if (this.poolLength + length > this.pool.length) {
      let size = this.pool.length * 2;
      while (size < this.poolLength + length) size *= 2;
      const grown = new Float64Array(size);
      grown.set(this.pool.subarray(0, this.poolLength));
      this.pool = grown;
    }
    this.pool.set(ips.subarray(0, length), this.poolLength);
    this.starts.push(this.poolLength);
    this.lengths.push(length);
    this.poolLength += length;
    if (found === undefined) this.byHash.set(hash, index);
    else if (typeof found === 'number') this.byHash.set(hash, [found, index]);
    else found.push(index);
    return index;
  }

  private equals(index: number, ips: Float64Array, length: number): boolean {
    if (this.lengths[index] !== length) return false;
    const start = this.starts[index];
    for (let i = 0; i < length; i++) if (this.pool[start + i] !== ips[i]) return false;
    return true;
  }
}

function hashOf(ips: Float64Array, length: number): number {
  let hash = 0x811c9dc5 ^ length;
  for (let i = 0; i < length; i++) {
    const v = ips[i];
    hash = Math.imul(hash ^ (v % 0x100000000), 0x01000193);
    hash = Math.imul(hash ^ Math.floor(v / 0x100000000), 0x01000193);
  }
  return hash;
}
