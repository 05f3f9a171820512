// Reads a PNG as Chromium writes screenshots (8-bit RGB or RGBA, not interlaced) without an
// image library: its pixels, and its distinct colours, to tell a real screenshot from a blank one.

import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngColors {
  width: number;
  height: number;
  distinct: number;
  /** Share of pixels that have the most common colour (1 = a single colour). */
  dominantShare: number;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** An 8-bit RGB or RGBA, non-interlaced PNG (as Chromium writes screenshots) as RGB pixels, row by row. */
export function decodePng(png: Buffer): { width: number; height: number; rgb: Uint8Array } {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      const colorType = data[9];
      if (depth !== 8 || data[12] !== 0 || (colorType !== 2 && colorType !== 6)) throw new Error(`unsupported PNG (depth ${depth}, colour type ${colorType}, interlace ${data[12]})`);
      channels = colorType === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  let prev = Buffer.alloc(stride);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = prev[i];
      const c = i >= channels ? prev[i - channels] : 0;
      const add = filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : filter === 4 ? paeth(a, b, c) : 0;
      line[i] = (line[i] + add) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      rgb[o] = line[x * channels];
      rgb[o + 1] = line[x * channels + 1];
      rgb[o + 2] = line[x * channels + 2];
    }
    prev = line;
  }
  return { width, height, rgb };
}

export function pngColors(png: Buffer): PngColors {
  const { width, height, rgb } = decodePng(png);
  const counts = new Map<number, number>();
  for (let o = 0; o < rgb.length; o += 3) {
    const key = (rgb[o] << 16) | (rgb[o + 1] << 8) | rgb[o + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const dominant = Math.max(...counts.values());
  return { width, height, distinct: counts.size, dominantShare: dominant / (width * height) };
}
