// Compares two screenshots pixel by pixel, with a tolerance per channel for the antialiasing a
// font rasterizer may shade differently, and writes a PNG of where they differ.

import { deflateSync } from 'node:zlib';
import { decodePng } from './png-colors.js';

export interface PngDiff {
  /** Pixels whose channels differ by more than the tolerance. */
  differing: number;
  /** differing / all pixels. */
  share: number;
  /** The reference dimmed with the differing pixels in magenta, as a PNG. */
  image: Buffer;
  sizeMismatch: string | null;
}

/** Pixels of `actual` that differ from `reference` by more than `channelTolerance` (0–255) in any channel. */
export function diffPng(actual: Buffer, reference: Buffer, channelTolerance = 24): PngDiff {
  const a = decodePng(actual);
  const r = decodePng(reference);
  if (a.width !== r.width || a.height !== r.height) {
    return { differing: a.width * a.height, share: 1, image: actual, sizeMismatch: `${a.width}×${a.height} against the reference's ${r.width}×${r.height}` };
  }
  const out = new Uint8Array(r.rgb.length);
  let differing = 0;
  for (let o = 0; o < r.rgb.length; o += 3) {
    const far = Math.abs(a.rgb[o] - r.rgb[o]) > channelTolerance || Math.abs(a.rgb[o + 1] - r.rgb[o + 1]) > channelTolerance || Math.abs(a.rgb[o + 2] - r.rgb[o + 2]) > channelTolerance;
    if (far) {
      differing++;
      out[o] = 255;
      out[o + 1] = 0;
      out[o + 2] = 255;
    } else {
      out[o] = r.rgb[o] >> 2;
      out[o + 1] = r.rgb[o + 1] >> 2;
      out[o + 2] = r.rgb[o + 2] >> 2;
    }
  }
  return { differing, share: differing / (r.width * r.height), image: encodePng(r.width, r.height, out), sizeMismatch: null };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  let crc = 0xffffffff;
  for (const byte of Buffer.concat([head.subarray(4), data])) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE((crc ^ 0xffffffff) >>> 0, 0);
  return Buffer.concat([head, data, tail]);
}

/** An 8-bit RGB PNG, rows unfiltered. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
