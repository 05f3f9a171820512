// Interns frame lists so each distinct stack is stored once and a sample stores only a u32.
// Frames of all stacks live end to end in one Uint32Array; an open-addressing table (linear
// probing, load <= 1/2) maps a hash of the u32s to the stack id, comparing frames on collision.
//
// A stack's identity is its wire frames: function ids in wire v1, frame ids (a function and an
// offset in it) in v2. Beside them the table keeps each stack's function ids, which is what the
// views aggregate by, and its flags (SampleFlags.Incomplete / Elided of the walk).

const INITIAL_SLOTS = 1 << 12;

/** `NO_EXTRA_ROOT` for intern(): the stack is exactly the given frames. */
export const NO_EXTRA_ROOT = -1;

function mix(h: number, k: number): number {
  // murmur3's per-word step: cheap, and spreads nearby function ids across the table.
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finish(h: number, length: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Maps a v2 frame id to its function id. */
export type FrameMapper = (frameId: number) => number;

export class StackTable {
  private flat = new Uint32Array(1 << 14);
  private functionFlat = new Uint32Array(1 << 14);
  private flatLen = 0;
  private flagBits = new Uint8Array(1 << 10);
  // starts[id] .. starts[id + 1] delimit stack id in `flat`.
  private starts = new Uint32Array(1 << 10);
  private hashes = new Uint32Array(1 << 10);
  private slots = new Int32Array(INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
  private n = 0;
  private readonly validateNew: (frames: Uint32Array, toFunction: FrameMapper | null) => void;

  /** `validateNew` sees the wire frames of each stack (and intern's mapper) before it is first stored, and may throw. */
  constructor(validateNew: (frames: Uint32Array, toFunction: FrameMapper | null) => void) {
    this.validateNew = validateNew;
  }

  get count(): number {
    return this.n;
  }

  /**
   * Returns the id of the stack `frames` (+ `extraRoot` appended at the root end, unless it
   * is NO_EXTRA_ROOT), storing it first if it is new. `frames` is only read during the call.
   * A new stack keeps `flags`, and its function ids are `toFunction` of its frames (the frames
   * themselves when null, as in v1; `extraRoot` is kept as it is).
   */
  intern(frames: Uint32Array, extraRoot: number, flags = 0, toFunction: FrameMapper | null = null): number {
    const n = frames.length;
    const length = extraRoot === NO_EXTRA_ROOT ? n : n + 1;
    let h = 0x9747b28c;
    for (let i = 0; i < n; i++) h = mix(h, frames[i]);
    if (length !== n) h = mix(h, extraRoot);
    h = finish(h, length);
    const slots = this.slots;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const entry = slots[slot];
      if (entry === 0) break;
      const id = entry - 1;
      if (this.hashes[id] === h && this.equals(id, frames, length, extraRoot)) return id;
      slot = (slot + 1) & mask;
    }
    this.validateNew(frames, toFunction);
    return this.insert(frames, length, extraRoot, h, slot, flags, toFunction);
  }

  /** The function ids of stack `id`, leaf first, as a view into the table (do not write to it). */
  frames(id: number): Uint32Array {
    return this.functionFlat.subarray(this.starts[id], this.starts[id + 1]);
  }

  /** The wire frames of stack `id` (v2 frame ids; v1 function ids), leaf first, as a view (do not write to it). */
  wireFrames(id: number): Uint32Array {
    return this.flat.subarray(this.starts[id], this.starts[id + 1]);
  }

  /** The flags stack `id` was first stored with. */
  flags(id: number): number {
    return this.flagBits[id];
  }

  byteSize(): number {
    return this.flat.byteLength + this.functionFlat.byteLength + this.starts.byteLength + this.hashes.byteLength
      + this.slots.byteLength + this.flagBits.byteLength;
  }

  private equals(id: number, frames: Uint32Array, length: number, extraRoot: number): boolean {
    const start = this.starts[id];
    if (this.starts[id + 1] - start !== length) return false;
    const flat = this.flat;
    const n = frames.length;
    for (let i = 0; i < n; i++) if (flat[start + i] !== frames[i]) return false;
    return length === n || flat[start + n] === extraRoot;
  }

  private insert(frames: Uint32Array, length: number, extraRoot: number, hash: number, slot: number, flags: number, toFunction: FrameMapper | null): number {
    const id = this.n;
    if (id + 2 > this.starts.length) {
      this.starts = grow(this.starts, id + 2);
      this.hashes = grow(this.hashes, id + 2);
    }
    if (id + 1 > this.flagBits.length) {
      const grown = new Uint8Array(this.flagBits.length * 2);
      grown.set(this.flagBits);
      this.flagBits = grown;
    }
    if (this.flatLen + length > this.flat.length) {
      this.flat = grow(this.flat, this.flatLen + length);
      this.functionFlat = grow(this.functionFlat, this.flat.length);
    }
    const start = this.flatLen;
    this.flat.set(frames, start);
    if (toFunction === null) this.functionFlat.set(frames, start);
    else for (let i = 0; i < frames.length; i++) this.functionFlat[start + i] = toFunction(frames[i]);
    if (length !== frames.length) {
      this.flat[start + frames.length] = extraRoot;
      this.functionFlat[start + frames.length] = extraRoot;
    }
    this.flagBits[id] = flags;
    this.flatLen = start + length;
    this.starts[id] = start;
    this.starts[id + 1] = this.flatLen;
    this.hashes[id] = hash;
    this.slots[slot] = id + 1;
    this.n = id + 1;
    if (this.n * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let id = 0; id < this.n; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function grow(a: Uint32Array, need: number): Uint32Array<ArrayBuffer> {
  let size = a.length * 2;
  while (size < need) size *= 2;
  const grown = new Uint32Array(size);
  grown.set(a);
  return grown;
}
