// The growth rule of every growable byte writer (the wire encoder, the nettrace writer): double
// until the need fits, so appending n bytes costs O(n) copies in all.

/** A buffer of at least `need` bytes holding the first `used` bytes of `buf`. */
export function grownBytes(buf: Uint8Array, used: number, need: number): Uint8Array<ArrayBuffer> {
  let size = Math.max(buf.length * 2, 64);
  while (size < need) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(buf.subarray(0, used));
  return grown;
}
