// One reader's fuzzing, in a worker thread whose heap the test bounds (resourceLimits): mutated
// seeds go through the reader, which must parse them or throw its own format error; what
// parses must then be writable in every format. Reports progress so the test can tell a hang.

import { parentPort, workerData } from 'node:worker_threads';
import { buildPprofProfile } from '../../../structs/formats/pprof/to-pprof.js';
import { openRecording, RecordingFileReader } from '../../../structs/formats/clrscope-file/open-recording.js';
import { saveRecording } from '../../../structs/formats/clrscope-file/save-recording.js';
import { NettraceFormatError, NettraceReader, nettraceChunks } from '../../../structs/formats/nettrace/index.js';
import { fromPprof } from '../../../structs/formats/pprof/from-pprof.js';
import { PprofFormatError } from '../../../structs/formats/pprof/pprof-format-error.js';
import { fromSpeedscope } from '../../../structs/formats/speedscope/from-speedscope.js';
import { SpeedscopeFormatError } from '../../../structs/formats/speedscope/speedscope-format-error.js';
import { speedscopeJsonChunks } from '../../../structs/formats/speedscope/to-speedscope.js';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import { RecordingError } from '../../../structs/profile/recording-error.js';
import { Recording } from '../../../structs/profile/recording.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { WireFormatError } from '../../../structs/wire/wire-format-error.js';
import { mutateBytes, mutateJson, rng } from './mutate.js';

export type FuzzedReader = 'clrscope' | 'wire' | 'nettrace' | 'pprof' | 'speedscope';

export interface FuzzJob {
  reader: FuzzedReader;
  seeds: Uint8Array[];
  seed: number;
  budgetMs: number;
  /** Bytes of array buffers held after an input beyond which the reader holds too much (the heap is bounded by the worker's resourceLimits). */
  memoryLimit: number;
}

export type FuzzMessage =
  | { type: 'progress'; index: number }
  | { type: 'failure'; index: number; message: string }
  | { type: 'done'; inputs: number; parsed: number; refused: number };

/** Feeds `bytes` in chunk sizes the PRNG picks, as a file or a socket would deliver them. */
function chunked(bytes: Uint8Array, random: () => number, push: (c: Uint8Array) => void): void {
  for (let p = 0; p < bytes.length;) {
    const size = 1 + Math.floor(random() * (random() < 0.2 ? 16 : 65536));
    push(bytes.subarray(p, p + size));
    p += size;
  }
}

function read(reader: FuzzedReader, input: Uint8Array, random: () => number): Recording {
  switch (reader) {
    case 'clrscope': {
      if (random() < 0.3) return openRecording(input).recording;
      const r = new RecordingFileReader();
      chunked(input, random, (c) => r.push(c));
      return r.finish().recording;
    }
    case 'wire': {
      const rec = new Recording();
      const decoder = new WireDecoder(rec.sink);
      chunked(input, random, (c) => decoder.push(c));
      decoder.end();
      rec.finish();
      return rec;
    }
    case 'nettrace': {
      const r = new NettraceReader();
      chunked(input, random, (c) => r.push(c));
      return r.finish({ partial: random() < 0.3 });
    }
    case 'pprof':
      return fromPprof(input);
    case 'speedscope':
      return fromSpeedscope(new TextDecoder().decode(input));
  }
}

function ownError(reader: FuzzedReader, err: unknown): boolean {
  switch (reader) {
    case 'clrscope': return err instanceof WireFormatError;
    case 'wire': return err instanceof WireFormatError || err instanceof RecordingError;
    case 'nettrace': return err instanceof NettraceFormatError;
    case 'pprof': return err instanceof PprofFormatError;
    case 'speedscope': return err instanceof SpeedscopeFormatError;
  }
}

/** What parsed must also be written: a recording the readers accept is one the writers take. */
function writeAll(rec: Recording): void {
  toCollapsed(rec, { metric: 'cpu', groupByThread: true });
  saveRecording(rec);
  buildPprofProfile(rec).encode();
  for (const piece of speedscopeJsonChunks(rec)) void piece.length;
  for (const piece of nettraceChunks(rec)) void piece.length;
}

function run(job: FuzzJob): void {
  const port = parentPort;
  if (port === null) return;
  const random = rng(job.seed);
  const textSeeds = job.seeds.map((s) => new TextDecoder().decode(s));
  const started = Date.now();
  let lastReport = 0;
  let index = 0;
  let parsed = 0;
  let refused = 0;
  for (; Date.now() - started < job.budgetMs; index++) {
    const which = Math.floor(random() * job.seeds.length);
    const input = job.reader === 'speedscope' && random() < 0.6
      ? new TextEncoder().encode(mutateJson(textSeeds[which], random))
      : mutateBytes(job.seeds[which], job.seeds, random);
    if (Date.now() - lastReport > 200) {
      port.postMessage({ type: 'progress', index } satisfies FuzzMessage);
      lastReport = Date.now();
    }
    let rec: Recording | undefined;
    try {
      rec = read(job.reader, input, random);
      parsed++;
    } catch (err) {
      if (ownError(job.reader, err)) refused++;
      else port.postMessage({ type: 'failure', index, message: `threw ${err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err)}` } satisfies FuzzMessage);
    }
    // A wire stream without HELLO is no recording (the collector says no runtime connected).
    if (rec !== undefined && rec.meta !== undefined) {
      try {
        writeAll(rec);
      } catch (err) {
        port.postMessage({ type: 'failure', index, message: `parsed, but writing it threw ${err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err)}` } satisfies FuzzMessage);
      }
    }
    const buffers = process.memoryUsage().arrayBuffers;
    if (buffers > job.memoryLimit) {
      port.postMessage({ type: 'failure', index, message: `held ${Math.round(buffers / 1048576)} MiB of buffers after the input` } satisfies FuzzMessage);
    }
  }
  port.postMessage({ type: 'done', inputs: index, parsed, refused } satisfies FuzzMessage);
}

run(workerData as FuzzJob);
