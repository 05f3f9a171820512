// Hostile recording files of each format, made on the fly: small inputs that ask a reader for
// far more than their size (nesting, counts, compression, declared sizes). Shared by the
// readers' tests (one sentence each) and scripts/bench/hostile-inputs.mjs (time and memory).

import { closeSync, openSync, writeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Function as PprofFunction, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { SPEEDSCOPE_SCHEMA_URL } from '../../../structs/formats/speedscope/speedscope-file.js';

export interface HostileFile {
  name: string;
  /** File name extension, which picks the reader. */
  ext: string;
  bytes: Uint8Array;
  /** What the reader must say about it. */
  expect: RegExp;
}

/** A speedscope evented profile opening `n` frames inside each other and closing none (1.35 MB at 40,000). */
export function speedscopeNestedOpens(n = 40_000): HostileFile {
  const events: string[] = [];
  for (let i = 0; i < n; i++) events.push(`{"type":"O","frame":${i % 50},"at":${i}}`);
  const frames = Array.from({ length: 50 }, (_, i) => `{"name":"f${i}"}`).join(',');
  const text = `{"$schema":"${SPEEDSCOPE_SCHEMA_URL}","shared":{"frames":[${frames}]},"profiles":[{"type":"evented","name":"nested","unit":"none","startValue":0,"endValue":${n},"events":[${events.join(',')}]}]}`;
  return { name: 'speedscope with 40,000 nested open events', ext: '.speedscope.json', bytes: Buffer.from(text), expect: /opens frames so deeply/ };
}

/**
 * Writes a speedscope evented profile of `n` frames opened inside each other to `path`, a
 * piece at a time: 7.8 MB at 200,000 opens, 100 MB at 2,500,000 (issue 23's files). Each
 * interval between two opens would become a sample of every open frame: n²/2 frames.
 * Returns the bytes written.
 */
export function writeSpeedscopeNestedOpens(path: string, n: number): number {
  const fd = openSync(path, 'w');
  let written = 0;
  const put = (text: string): void => {
    written += writeSync(fd, text);
  };
  try {
    const frames = Array.from({ length: 50 }, (_, i) => `{"name":"f${i}"}`).join(',');
    put(`{"$schema":"${SPEEDSCOPE_SCHEMA_URL}","shared":{"frames":[${frames}]},"profiles":[{"type":"evented","name":"nested","unit":"none","startValue":0,"endValue":${n * 1000},"events":[`);
    let piece: string[] = [];
    for (let i = 0; i < n; i++) {
      piece.push(`{"type":"O","frame":${i % 50},"at":${i * 1000}}`);
      if (piece.length === 20_000 || i === n - 1) {
        put((i + 1 > piece.length ? ',' : '') + piece.join(','));
        piece = [];
      }
    }
    put(']}]}');
  } finally {
    closeSync(fd);
  }
  return written;
}

function pprofHeader(): { p: Profile; strings: StringTable } {
  const strings = new StringTable();
  const p = new Profile({
    sampleType: [new ValueType({ type: strings.dedup('samples'), unit: strings.dedup('count') })],
    function: [new PprofFunction({ id: 1, name: strings.dedup('Bomb.Frame') })],
    location: [new Location({ id: 1, line: [new Line({ functionId: 1 })] })],
    stringTable: strings,
  });
  return { p, strings };
}

/**
 * A gzip bomb: a valid pprof whose samples each list one location a million times, about
 * `decompressedMiB` MiB decompressed from ~1/1000 of that (2 MB for 2 GiB).
 */
export function pprofGzipBomb(decompressedMiB = 2048): HostileFile {
  const { p } = pprofHeader();
  const head = Buffer.from(p.encode());
  const ids = 1 << 20;
  const sample = Buffer.from(new Profile({ sample: [new Sample({ locationId: new Array<number>(ids).fill(1), value: [1] })] }).encode());
  const count = Math.max(1, Math.round((decompressedMiB * 1048576) / sample.length));
  // Deflate a few copies, then repeat the compressed middle: gzip members may be concatenated.
  const copies = (n: number): Buffer[] => Array.from({ length: n }, () => sample);
  const first = Math.min(count, 16);
  const members = [gzipSync(Buffer.concat([head, ...copies(first)]), { level: 9 })];
  const block = gzipSync(Buffer.concat(copies(16)), { level: 9 });
  let done = first;
  for (; done + 16 <= count; done += 16) members.push(block);
  if (done < count) members.push(gzipSync(Buffer.concat(copies(count - done)), { level: 9 }));
  return { name: `pprof gzip bomb (${decompressedMiB} MiB decompressed)`, ext: '.pb.gz', bytes: Buffer.concat(members), expect: /decompresses to more than \d+ MiB/ };
}

/** A small pprof whose rows count a million samples each: billions of samples from a few KB. */
export function pprofCountBomb(rows = 10_000): HostileFile {
  const { p } = pprofHeader();
  p.sample = Array.from({ length: rows }, () => new Sample({ locationId: [1], value: [999_999] }));
  return { name: `pprof of ${rows} rows counting 999,999 samples each`, ext: '.pb.gz', bytes: gzipSync(p.encode()), expect: /sample counts add up to \d+ samples, more than/ };
}

/**
 * A .nettrace whose one object declares (and has) a block of `mib` MiB of an unknown type:
 * read 1 MiB at a time, each piece used to be joined to all the pieces before it.
 */
export function nettraceLargeBlock(mib = 60): HostileFile {
  const parts: Buffer[] = [];
  const int32 = (v: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    return b;
  };
  const sig = '!FastSerialization.1';
  parts.push(Buffer.from('Nettrace'), int32(sig.length), Buffer.from(sig));
  const object = (name: string, version: number, body: Buffer[]): void => {
    parts.push(Buffer.from([5, 5, 1]), int32(version), int32(version), int32(name.length), Buffer.from(name), Buffer.from([6]), ...body, Buffer.from([6]));
  };
  // Trace: sync time (16), QPC sync (8), QPC frequency (8), pointer size (4), pid (4), processors (4), sampling rate (4).
  const trace = Buffer.alloc(48);
  trace.writeBigInt64LE(10_000_000n, 24);
  trace.writeInt32LE(8, 32);
  object('Trace', 4, [trace]);
  const offset = parts.reduce((n, b) => n + b.length, 0);
  const name = 'HugeBlock';
  // Header: 3 tag bytes, 2 versions, name length, name, end tag; then the size and padding to 4.
  const sizeAt = offset + 3 + 12 + name.length + 1;
  const pad = (4 - ((sizeAt + 4) & 3)) & 3;
  const size = mib * 1048576;
  parts.push(Buffer.from([5, 5, 1]), int32(2), int32(2), int32(name.length), Buffer.from(name), Buffer.from([6]), int32(size), Buffer.alloc(pad), Buffer.alloc(size), Buffer.from([6]));
  parts.push(Buffer.from([1]));
  return { name: `nettrace with one ${mib} MiB block`, ext: '.nettrace', bytes: Buffer.concat(parts), expect: /./ };
}
