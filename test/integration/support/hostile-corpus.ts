// The worst shapes of each format clrscope reads, at sizes up to 100 MB, written to files a
// piece at a time: what scripts/bench/hostile-inputs.mjs measures (time and peak memory of
// convert, report and the workstation's Open). Each shape aims at one way a file can ask for
// more than its size: nesting, many samples, deep or many distinct stacks, many distinct frames,
// long names, compression, counts and varints, records that share frames.

import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Function as PprofFunction, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { nettraceChunks } from '../../../structs/formats/nettrace/index.js';
import { SPEEDSCOPE_SCHEMA_URL } from '../../../structs/formats/speedscope/speedscope-file.js';
import { Recording } from '../../../structs/profile/recording.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { SampleFlags } from '../../../structs/wire/records.js';
import { nettraceLargeBlock, pprofCountBomb, pprofGzipBomb, writeSpeedscopeNestedOpens } from './hostile-files.js';

export interface CorpusFile {
  /** What the file is, for a table. */
  name: string;
  path: string;
  bytes: number;
}

export interface CorpusShape {
  name: string;
  /** Writes the file into `dir`. */
  make(dir: string): CorpusFile;
}

/** A shape whose name is known before its file is made (so a run can pick shapes cheaply). */
function shape(name: string, make: (dir: string) => { path: string; bytes: number }): CorpusShape {
  return { name, make: (dir) => ({ name, ...make(dir) }) };
}

const MB = 1_000_000;

/** Writes pieces of text or bytes to a file, keeping count. */
class PieceWriter {
  private readonly fd: number;
  bytes = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  put(piece: string | Uint8Array): void {
    this.bytes += typeof piece === 'string' ? writeSync(this.fd, piece) : writeSync(this.fd, piece);
  }

  close(): number {
    closeSync(this.fd);
    return this.bytes;
  }
}

/** `count` list entries made by `entry(i)`, written 20,000 at a time with commas between. */
function putList(w: PieceWriter, count: number, entry: (i: number) => string): void {
  let piece: string[] = [];
  for (let i = 0; i < count; i++) {
    piece.push(entry(i));
    if (piece.length === 20_000 || i === count - 1) {
      w.put((i + 1 > piece.length ? ',' : '') + piece.join(','));
      piece = [];
    }
  }
}

function speedscopeFrames(n: number, name: (i: number) => string = (i) => `f${i}`): string {
  return Array.from({ length: n }, (_, i) => `{"name":"${name(i)}"}`).join(',');
}

/** A sampled speedscope profile of `samples` stacks made by `stack(s)` (frame indexes, root first). */
function speedscopeSampled(path: string, frames: string, samples: number, stack: (s: number) => string): number {
  const w = new PieceWriter(path);
  w.put(`{"$schema":"${SPEEDSCOPE_SCHEMA_URL}","shared":{"frames":[${frames}]},"profiles":[{"type":"sampled","name":"t","unit":"none","startValue":0,"endValue":${samples},"samples":[`);
  putList(w, samples, stack);
  w.put('],"weights":[');
  putList(w, samples, () => '1');
  w.put(']}]}');
  return w.close();
}

const deepStack = (depth: number, leaf: (s: number) => string): ((s: number) => string) => {
  const body = new Array<string>(depth - 2).fill('0').join(',');
  return (s) => `[${body},${leaf(s)}]`;
};

export const SPEEDSCOPE_SHAPES: CorpusShape[] = [
  shape('speedscope: 200,000 nested opens', (dir) => {
    const path = join(dir, 'nested-8mb.speedscope.json');
    return { path, bytes: writeSpeedscopeNestedOpens(path, 200_000) };
  }),
  shape('speedscope: 2,500,000 nested opens', (dir) => {
    const path = join(dir, 'nested-100mb.speedscope.json');
    return { path, bytes: writeSpeedscopeNestedOpens(path, 2_500_000) };
  }),
  shape('speedscope: 2,500,000 events two deep', (dir) => {
    // Open and close pairs: 1.25 M samples, within the budget.
    const path = join(dir, 'evented-shallow-100mb.speedscope.json');
    const w = new PieceWriter(path);
    const n = 2_500_000;
    w.put(`{"$schema":"${SPEEDSCOPE_SCHEMA_URL}","shared":{"frames":[${speedscopeFrames(50)}]},"profiles":[{"type":"evented","name":"t","unit":"none","startValue":0,"endValue":${n * 10},"events":[`);
    putList(w, n, (i) => `{"type":"${i % 2 === 0 ? 'O' : 'C'}","frame":${(i >> 1) % 50},"at":${i * 10}}`);
    w.put(']}]}');
    return { path, bytes: w.close() };
  }),
  shape('speedscope: 760 samples of 65,535 frames, one stack', (dir) => {
    // 50 M frames summed over samples (within 64 M), one distinct stack.
    const path = join(dir, 'sampled-deep-100mb.speedscope.json');
    return { path, bytes: speedscopeSampled(path, speedscopeFrames(50), 760, deepStack(65_535, () => '0')) };
  }),
  shape('speedscope: 760 distinct stacks of 65,535 frames', (dir) => {
    const path = join(dir, 'sampled-distinct-100mb.speedscope.json');
    return { path, bytes: speedscopeSampled(path, speedscopeFrames(50), 760, deepStack(65_535, (s) => `${s % 50},${Math.floor(s / 50) % 50}`)) };
  }),
  shape('speedscope: 20,000,000 empty samples', (dir) => {
    const path = join(dir, 'empty-samples-100mb.speedscope.json');
    return { path, bytes: speedscopeSampled(path, '', 20_000_000, () => '[]') };
  }),
  shape('speedscope: 1,000,000 distinct frames', (dir) => {
    const path = join(dir, 'many-frames.speedscope.json');
    return { path, bytes: speedscopeSampled(path, speedscopeFrames(1_000_000, (i) => `Ns.Type${i}.Method${i}`), 1_000_000, (s) => `[${s}]`) };
  }),
  shape('speedscope: two frames named by 45 MB each', (dir) => {
    const path = join(dir, 'long-names.speedscope.json');
    const name = 'x'.repeat(45 * MB);
    return { path, bytes: speedscopeSampled(path, `{"name":"${name}"},{"name":"${name}y"}`, 2, (s) => `[${s}]`) };
  }),
  shape('speedscope: lists nested 50,000,000 deep', (dir) => {
    const path = join(dir, 'deep-json-100mb.speedscope.json');
    const w = new PieceWriter(path);
    w.put(`{"$schema":"${SPEEDSCOPE_SCHEMA_URL}","extra":`);
    const open = '['.repeat(MB);
    const close = ']'.repeat(MB);
    for (let i = 0; i < 50; i++) w.put(open);
    for (let i = 0; i < 50; i++) w.put(close);
    w.put(',"shared":{"frames":[]},"profiles":[]}');
    return { path, bytes: w.close() };
  }),
];

function pprofFile(path: string, profile: Profile, gzip = true): { path: string; bytes: number } {
  const raw = profile.encode();
  const bytes = gzip ? gzipSync(raw) : raw;
  writeFileSync(path, bytes);
  return { path, bytes: bytes.length };
}

function pprofWith(fill: (p: Profile, st: StringTable) => void): Profile {
  const st = new StringTable();
  const p = new Profile({ sampleType: [new ValueType({ type: st.dedup('samples'), unit: st.dedup('count') })], stringTable: st });
  fill(p, st);
  return p;
}

function written(path: string, bytes: Uint8Array): { path: string; bytes: number } {
  writeFileSync(path, bytes);
  return { path, bytes: bytes.length };
}

export const PPROF_SHAPES: CorpusShape[] = [
  shape('pprof: gzip bomb (2 GiB inflated)', (dir) => written(join(dir, 'gzip-bomb.pb.gz'), pprofGzipBomb().bytes)),
  shape('pprof: 7.5 MiB of location lists', (dir) => written(join(dir, 'location-lists.pb.gz'), pprofGzipBomb(7.5).bytes)),
  shape('pprof: 10,000 rows of 999,999 samples', (dir) => written(join(dir, 'count-bomb.pb.gz'), pprofCountBomb().bytes)),
  shape('pprof: a location of 1,000,000 inlined lines in 100 rows', (dir) => pprofFile(join(dir, 'lines-bomb.pb.gz'), pprofWith((p, st) => {
    p.function = [new PprofFunction({ id: 1, name: st.dedup('Bomb.Inlined') })];
    p.location = [new Location({ id: 1, line: Array.from({ length: 1_000_000 }, () => new Line({ functionId: 1 })) })];
    p.sample = Array.from({ length: 100 }, () => new Sample({ locationId: [1], value: [1] }));
  }))),
  shape('pprof: 200,000 distinct functions and locations', (dir) => pprofFile(join(dir, 'many-functions.pb.gz'), pprofWith((p, st) => {
    const n = 200_000;
    p.function = Array.from({ length: n }, (_, i) => new PprofFunction({ id: i + 1, name: st.dedup(`Ns.T${i}.M`) }));
    p.location = Array.from({ length: n }, (_, i) => new Location({ id: i + 1, line: [new Line({ functionId: i + 1 })] }));
    p.sample = Array.from({ length: n }, (_, i) => new Sample({ locationId: [i + 1, ((i * 7919) % n) + 1], value: [1] }));
  }))),
  shape('pprof: 300,000 rows of 10-byte varints', (dir) => pprofFile(join(dir, 'varints.pb.gz'), pprofWith((p, st) => {
    p.function = [new PprofFunction({ id: 1, name: st.dedup('F') })];
    p.location = [new Location({ id: 1, address: 0xffffffffffff, line: [new Line({ functionId: 1 })] })];
    p.sampleType.push(new ValueType({ type: st.dedup('cpu'), unit: st.dedup('nanoseconds') }));
    p.sample = Array.from({ length: 300_000 }, () => new Sample({ locationId: [1], value: [1, -1] }));
  }))),
  shape('pprof: 100 MB uncompressed', (dir) => {
    const path = join(dir, 'uncompressed-100mb.pb');
    const w = new PieceWriter(path);
    const piece = new Uint8Array(MB).fill(0x08);
    for (let i = 0; i < 100; i++) w.put(piece);
    return { path, bytes: w.close() };
  }),
];

/** A Recording of `samples` samples cycling over `stacks` stacks of `depth` frames, for the nettrace writer. */
function syntheticRecording(samples: number, stacks: number, depth: number): Recording {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const enc = new WireEncoder(1 << 21);
  enc.preamble().hello({ pid: 1, flags: 3, mono: 0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.0', profilerVersion: 'hostile corpus' });
  const functions = Math.max(2, Math.min(stacks, 1000));
  for (let f = 1; f <= functions; f++) {
    enc.function({ functionId: f, kind: 0, name: `Ns.Type.M${f}`, module: 'App.dll', file: '' });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  enc.thread({ threadId: 1, osTid: 5, clrThreadId: 0, mono: 0, name: 't' });
  const frames = new Uint32Array(depth).fill(1);
  for (let s = 1; s <= stacks; s++) {
    frames[0] = 1 + (s % functions);
    if (depth > 1) frames[1] = 1 + (Math.floor(s / functions) % functions);
    enc.stack(s, 0, frames);
  }
  for (let i = 0; i < samples; i++) {
    enc.stackSample(i * 1000, 1, SampleFlags.Cpu, 1000, 0, 1 + (i % stacks));
    if (enc.byteLength > 1 << 20) decoder.push(enc.takeBytes(true));
  }
  enc.end({ mono: samples * 1000, reason: 0 });
  decoder.push(enc.takeBytes(true));
  decoder.end();
  rec.finish();
  return rec;
}

function nettraceFile(path: string, rec: Recording): { path: string; bytes: number } {
  const w = new PieceWriter(path);
  for (const chunk of nettraceChunks(rec)) w.put(chunk);
  return { path, bytes: w.close() };
}

export const NETTRACE_SHAPES: CorpusShape[] = [
  shape('nettrace: one 60 MiB block', (dir) => written(join(dir, 'large-block.nettrace'), nettraceLargeBlock(60).bytes)),
  shape('nettrace: 14,000,000 samples of one stack', (dir) => nettraceFile(join(dir, 'many-samples-100mb.nettrace'), syntheticRecording(14_000_000, 1, 3))),
  shape('nettrace: 3,000 distinct stacks of 4,096 frames', (dir) => nettraceFile(join(dir, 'deep-stacks-100mb.nettrace'), syntheticRecording(3000, 3000, 4096))),
];

/** A .clrscope file: a HELLO, three functions and a thread, then whatever `body` writes. */
function clrscopeFile(path: string, body: (enc: WireEncoder, flush: () => void) => void): { path: string; bytes: number } {
  const w = new PieceWriter(path);
  const enc = new WireEncoder(1 << 21);
  enc.preamble().hello({ pid: 1, flags: 1, mono: 0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.0', profilerVersion: 'hostile corpus' });
  for (let f = 1; f <= 3; f++) {
    enc.function({ functionId: f, kind: 0, name: `Ns.Type.M${f}`, module: 'App.dll', file: '' });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  enc.thread({ threadId: 1, osTid: 5, clrThreadId: 0, mono: 0, name: 't' });
  const flush = (): void => {
    if (enc.byteLength > 1 << 20) w.put(enc.takeBytes());
  };
  body(enc, flush);
  w.put(enc.takeBytes(true));
  return { path, bytes: w.close() };
}

export const CLRSCOPE_SHAPES: CorpusShape[] = [
  shape('clrscope: 5,000 STACKs of 65,535 frames sharing all but two', (dir) => clrscopeFile(join(dir, 'stack-share-bomb.clrscope'), (enc, flush) => {
    const frames = new Uint32Array(65_535).fill(3);
    for (let s = 1; s <= 5000; s++) {
      frames[0] = 1 + (s % 3);
      frames[1] = 1 + (Math.floor(s / 3) % 3);
      enc.stack(s, 0, frames);
      flush();
    }
  })),
  shape('clrscope: 50,000,000 two-byte samples', (dir) => clrscopeFile(join(dir, 'tiny-samples-100mb.clrscope'), (enc, flush) => {
    enc.stack(1, 0, [1, 2, 3]);
    // Same thread, same time, same stack: each sample is its head byte and a CPU value.
    for (let i = 0; i < 50_000_000; i++) {
      enc.stackSample(0, 1, SampleFlags.Cpu, 0, 0, 1);
      if ((i & 0xffff) === 0) flush();
    }
  })),
  shape('clrscope: 1,800,000 FUNCTION and FRAME records', (dir) => clrscopeFile(join(dir, 'many-functions-100mb.clrscope'), (enc, flush) => {
    for (let f = 4; f < 1_800_000; f++) {
      enc.function({ functionId: f, kind: 0, name: `N.T${f}.M`, module: '', file: '' });
      enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
      flush();
    }
  })),
  shape('clrscope: 1,000 distinct stacks of 65,535 frames', (dir) => clrscopeFile(join(dir, 'distinct-deep-stacks-100mb.clrscope'), (enc, flush) => {
    for (let f = 4; f <= 100; f++) {
      enc.function({ functionId: f, kind: 0, name: `Ns.Type.M${f}`, module: 'App.dll', file: '' });
      enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
    }
    const frames = new Uint32Array(65_535);
    for (let s = 1; s <= 1000; s++) {
      // The leaf pair tells the stacks apart; the rest turns with s, so nothing is shared with
      // the STACK before and every frame is in the file.
      for (let k = 2; k < frames.length; k++) frames[k] = 1 + ((k + s) % 3);
      frames[0] = 1 + (s % 100);
      frames[1] = 1 + (Math.floor(s / 100) % 100);
      enc.stack(s, 0, frames);
      flush();
    }
  })),
];

export const ALL_SHAPES: CorpusShape[] = [...SPEEDSCOPE_SHAPES, ...PPROF_SHAPES, ...NETTRACE_SHAPES, ...CLRSCOPE_SHAPES];
