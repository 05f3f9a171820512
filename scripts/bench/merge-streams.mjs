// What merging a process tree's streams live costs the workstation's main process (a launch with
// "child processes"): per sample, the collector's decode of each process's stream (what every
// session pays) against that plus the merge into one stream (ProcessTreeStream) and the decode of
// the merged stream into the session's model (merged-streams.ts). Synthetic wire v2 streams of
// PROCESSES processes, 16 threads each, fed in 64 KiB chunks taken in turn; with --processes 1 the
// program that starts no child, whose bytes pass as they are. Run after `npm run build`:
//   node scripts/bench/merge-streams.mjs [--samples 1000000] [--processes 3] [--runs 5]
// Prints a readable report and, last, one JSON line.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
if (!existsSync(join(root, 'dist', 'structs', 'formats', 'clrscope-file', 'process-tree-stream.js'))) {
  console.error('dist/ is missing; run npm run build first.');
  process.exit(1);
}
const { WireEncoder } = await import(dist('structs/wire/encoder.js'));
const { WireDecoder } = await import(dist('structs/wire/decoder.js'));
const { Recording } = await import(dist('structs/profile/recording.js'));
const { ProcessTreeStream } = await import(dist('structs/formats/clrscope-file/process-tree-stream.js'));
const { processRecordTap } = await import(dist('structs/formats/clrscope-file/process-record.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SAMPLES = arg('samples', 1_000_000);
const PROCESSES = arg('processes', 3);
const RUNS = arg('runs', 5);
const THREADS = 16;
const STACKS = 3000;
const FUNCTIONS = 1500;
const DEPTH = 24;
const CHUNK = 64 * 1024;
const PER_PROCESS = Math.floor(SAMPLES / PROCESSES);

let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const pick = (n) => Math.floor(rand() * n);

/** One process's stream: its own functions (a few shared with the others, as the framework is), stacks, threads and samples. */
function processStream(p) {
  const enc = new WireEncoder(1 << 20).preamble().hello({
    pid: 1000 + p, flags: 3, mono: 1_000_000_000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: 'bench',
  });
  enc.module({ moduleId: 1, kind: 0, mvid: '', path: '/usr/share/dotnet/System.Private.CoreLib.dll' });
  enc.module({ moduleId: 2, kind: 0, mvid: '', path: `/app/Process${p}.dll` });
  for (let f = 1; f <= FUNCTIONS; f++) {
    const shared = f <= FUNCTIONS / 3;
    enc.function({ functionId: f, kind: 0, name: shared ? `System.Shared.M${f}` : `App${p}.Work.M${f}`, module: '', file: '', moduleId: shared ? 1 : 2, token: 0x06000000 + f });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 100 * p + t, clrThreadId: t, mono: 1_000_000_000, name: `worker ${t}` });
  for (let s = 1; s <= STACKS; s++) enc.stack(s, 0, Array.from({ length: DEPTH }, () => 1 + pick(FUNCTIONS)));
  const chunks = [];
  let mono = 1_000_000_000;
  for (let i = 0; i < PER_PROCESS; i++) {
    mono += 150_000;
    enc.stackSample(mono, 1 + pick(THREADS), 3, 10_000_000, 10_000_000, 1 + pick(STACKS));
    if (enc.completeLength >= CHUNK) chunks.push(enc.takeBytes());
  }
  chunks.push(enc.takeBytes(true));
  return chunks;
}

const streams = Array.from({ length: PROCESSES }, (_, p) => processStream(p));
const inputBytes = streams.reduce((n, s) => n + s.reduce((m, c) => m + c.length, 0), 0);

/** The chunks in turn, one of each process's at a time, as the collector hands them over. */
function* interleaved() {
  for (let i = 0; streams.some((s) => i < s.length); i++) for (let p = 0; p < PROCESSES; p++) if (i < streams[p].length) yield [p, streams[p][i]];
}

function collectorOnly() {
  const decoders = streams.map(() => new WireDecoder(new Recording({ keepSamples: false }).sink));
  const t0 = process.cpuUsage();
  for (const [p, chunk] of interleaved()) decoders[p].push(chunk);
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}

function merged() {
  const decoders = streams.map(() => new WireDecoder(new Recording({ keepSamples: false }).sink));
  const keys = streams.map((_, p) => ({ p }));
  const tree = new ProcessTreeStream({ nameOf: () => 'dotnet' });
  const model = new Recording({ keepSamples: false });
  const modelDecoder = new WireDecoder(model.sink);
  const tap = processRecordTap(model, 'stream');
  let out = 0;
  const t0 = process.cpuUsage();
  for (const [p, chunk] of interleaved()) {
    decoders[p].push(chunk);
    const bytes = tree.push(keys[p], chunk);
    if (bytes.length > 0) {
      modelDecoder.push(bytes);
      tap.push(bytes);
      out += bytes.length;
    }
  }
  const last = tree.finish(undefined);
  modelDecoder.push(last);
  out += last.length;
  const t = process.cpuUsage(t0);
  if (model.sampleCount !== PER_PROCESS * PROCESSES) throw new Error(`the merged model counted ${model.sampleCount} samples`);
  // One process alone passes as its own bytes: no PROCESS record.
  if (model.processes().length !== (PROCESSES > 1 ? PROCESSES : 0)) throw new Error(`the merged model has ${model.processes().length} processes`);
  return { ms: (t.user + t.system) / 1000, out };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
collectorOnly();
merged();
const base = [];
const withMerge = [];
let outBytes = 0;
for (let r = 0; r < RUNS; r++) {
  base.push(collectorOnly());
  const m = merged();
  withMerge.push(m.ms);
  outBytes = m.out;
}
const samples = PER_PROCESS * PROCESSES;
const perMillion = (ms) => ms * 1e6 / samples;
const result = {
  samples, processes: PROCESSES, runs: RUNS, load: loadavg()[0],
  collectorMsPerMillion: perMillion(median(base)), mergedMsPerMillion: perMillion(median(withMerge)),
  extraNsPerSample: (median(withMerge) - median(base)) * 1e6 / samples,
  inputBytes, mergedBytes: outBytes,
};
console.log(`merge-streams: ${samples.toLocaleString('en-US')} samples of ${PROCESSES} processes, ${RUNS} runs (load ${result.load.toFixed(1)}), median CPU:`);
console.log(`  collector decode only:            ${result.collectorMsPerMillion.toFixed(0)} ms per million samples`);
console.log(`  + merge + the merged stream's model: ${result.mergedMsPerMillion.toFixed(0)} ms per million samples (${result.extraNsPerSample.toFixed(0)} ns more per sample)`);
console.log(`  stream bytes: ${(inputBytes / 2 ** 20).toFixed(1)} MiB in, ${(outBytes / 2 ** 20).toFixed(1)} MiB merged`);
console.log(JSON.stringify(result));
