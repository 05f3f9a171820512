// pprof-format's decoder reads whatever prefix of a message it is given and returns what it
// found, so a truncated file would open as a silently smaller profile. Walking the top-level
// fields first catches a message cut inside a field: its last field then claims more bytes
// than are left. (A cut exactly between two fields cannot be seen in protobuf itself; gzip's
// own length check catches that for .pb.gz files.)

import { PprofFormatError } from './pprof-format-error.js';

/** Returns the varint at `p` and the position after it; throws when it runs past the end. */
function varint(bytes: Uint8Array, p: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (p >= bytes.length) throw new PprofFormatError(`Not a readable pprof profile: it ends inside a number at byte ${p} (the file is truncated).`);
    const b = bytes[p++];
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return [value, p];
  }
  throw new PprofFormatError(`Not a readable pprof profile: the number before byte ${p} is longer than 10 bytes (the file is corrupt).`);
}

/** Checks that the top-level fields of a protobuf message tile `bytes` exactly. */
export function checkProtobufFraming(bytes: Uint8Array): void {
  let p = 0;
  while (p < bytes.length) {
    const start = p;
    let tag: number;
    [tag, p] = varint(bytes, p);
    const wireType = tag % 8;
    if (tag < 8) throw new PprofFormatError(`Not a readable pprof profile: the field at byte ${start} has number 0, which protobuf does not allow (the file is not a pprof profile or is corrupt).`);
    let size: number;
    switch (wireType) {
      case 0: [, p] = varint(bytes, p); continue;
      case 1: size = 8; break;
      case 5: size = 4; break;
      case 2: [size, p] = varint(bytes, p); break;
      default:
        throw new PprofFormatError(`Not a readable pprof profile: the field at byte ${start} has wire type ${wireType}, which pprof never uses (the file is not a pprof profile or is corrupt).`);
    }
    if (p + size > bytes.length) {
      throw new PprofFormatError(`Not a readable pprof profile: the field at byte ${start} claims ${size} bytes but only ${bytes.length - p} are left (the file is truncated).`);
    }
    p += size;
  }
}
