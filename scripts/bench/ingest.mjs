// Ingest benchmark: how fast the workstation turns wire bytes into a stored Recording, and
// how many bytes each stored sample costs. Run after `npm run build`:
//   node scripts/bench/ingest.mjs [--samples 2000000] [--depth 32] [--stacks 5000] [--functions 2000] [--runs 5]
// Prints a readable report and, last, one JSON line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';

// Memory per sample is measured around a forced GC, so the script needs --expose-gc; rather
// than make every caller remember the flag, it re-runs itself with it.
if (typeof globalThis.gc !== 'function') {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
if (!existsSync(join(root, 'dist', 'structs', 'profile', 'recording.js'))) {
  console.error('dist/ is missing; run npm run build first.');
  process.exit(1);
}
const { WireEncoder } = await import(dist('structs/wire/encoder.js'));
const { WireDecoder } = await import(dist('structs/wire/decoder.js'));
const { Recording } = await import(dist('structs/profile/recording.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SAMPLES = arg('samples', 2_000_000);
const DEPTH = arg('depth', 32);
const STACKS = arg('stacks', 5_000);
const FUNCTIONS = arg('functions', 2_000);
const RUNS = arg('runs', 5);
const THREADS = 16;
const CHUNK = 64 * 1024; // what a Unix socket read typically hands Node
const GOAL = 1_000_000;

// Deterministic pseudo-random numbers so every run measures the same stream.
let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const pick = (n) => Math.floor(rand() * n);

// Distinct stacks grown from a shared trunk, as real call trees are: a few thread entry
// points, then branches; the leaf end varies most.
function makeStacks() {
  const set = new Set();
  const stacks = [];
  const trunks = Array.from({ length: 40 }, () => Array.from({ length: 8 }, () => 1 + pick(FUNCTIONS)));
  while (stacks.length < STACKS) {
    const rootFirst = trunks[pick(trunks.length)].slice(0, DEPTH);
    while (rootFirst.length < DEPTH) rootFirst.push(1 + pick(FUNCTIONS));
    const key = rootFirst.join(',');
    if (set.has(key)) continue;
    set.add(key);
    stacks.push(Uint32Array.from(rootFirst.reverse()));
  }
  return stacks;
}

function synthesize() {
  const stacks = makeStacks();
  const enc = new WireEncoder(SAMPLES * (36 + 4 * DEPTH) + FUNCTIONS * 64 + 4096);
  const mono0 = 1_000_000_000;
  enc.preamble().hello({ pid: 1, flags: 3, mono: mono0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.0', profilerVersion: 'bench' });
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 1000 + t, clrThreadId: 0x7f0000000000 + t, mono: mono0, name: `worker-${t}` });
  for (let f = 1; f <= FUNCTIONS; f++) {
    enc.function({ functionId: f, kind: f % 10 === 0 ? 1 : 0, name: `Bench.Namespace.Type${f % 97}.Method${f}`, module: f % 10 === 0 ? 'libcoreclr.so' : 'Bench.dll', file: '' });
  }
  const s = { mono: 0, threadId: 0, flags: 0, cpuNs: 0, wallNs: 0, frames: stacks[0] };
  for (let i = 0; i < SAMPLES; i++) {
    // Skewed popularity: a few hot stacks take most samples, as in real profiles.
    const r = rand();
    s.frames = stacks[Math.floor(r * r * r * STACKS)];
    s.mono = mono0 + i * 1000;
    s.threadId = 1 + (i % THREADS);
    s.flags = rand() < 0.02 ? 7 : 3;
    s.cpuNs = 9_000_000 + pick(2_000_000);
    s.wallNs = 10_000_000;
    enc.sample(s);
  }
  enc.end({ mono: mono0 + SAMPLES * 1000, reason: 0 });
  return enc.bytes();
}

function ingest(bytes) {
  const rec = new Recording();
  const decoder = new WireDecoder(rec);
  for (let p = 0; p < bytes.length; p += CHUNK) decoder.push(bytes.subarray(p, p + CHUNK));
  decoder.end();
  rec.finish();
  return rec;
}

const memory = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
// ArrayBuffer backing stores are released after the GC that finds them dead, not during it,
// so collect, yield, and collect again before reading memory.
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const tSynth = performance.now();
const bytes = synthesize();
console.log(`synthesized ${SAMPLES.toLocaleString('en-US')} samples, depth ${DEPTH}, ${STACKS} stacks over ${FUNCTIONS} functions: ${(bytes.length / 1048576).toFixed(1)} MiB in ${((performance.now() - tSynth) / 1000).toFixed(1)} s`);

const times = [];
let kept;
for (let run = 0; run < RUNS; run++) {
  kept = undefined;
  globalThis.gc();
  const t0 = performance.now();
  const rec = ingest(bytes);
  const ms = performance.now() - t0;
  times.push(ms);
  if (rec.sampleCount !== SAMPLES) throw new Error(`stored ${rec.sampleCount} samples, expected ${SAMPLES}`);
  kept = rec;
  console.log(`run ${run + 1}: ${ms.toFixed(0)} ms, ${Math.round(SAMPLES / (ms / 1000)).toLocaleString('en-US')} samples/s`);
}
const stackCount = kept.stackCount;
kept = undefined;

// Memory: what the heap and array buffers grow by when one recording is built and kept.
await settle();
const before = memory();
let rec = ingest(bytes);
await settle();
const after = memory();
const measuredBytesPerSample = (after - before) / SAMPLES;
const byteSizeBytesPerSample = rec.byteSize() / SAMPLES;
rec = undefined;

times.sort((a, b) => a - b);
const medianMs = times[Math.floor(times.length / 2)];
const samplesPerSec = SAMPLES / (medianMs / 1000);
const result = {
  bench: 'ingest',
  samples: SAMPLES,
  depth: DEPTH,
  wireStacks: STACKS,
  storedStacks: stackCount,
  functions: FUNCTIONS,
  chunkBytes: CHUNK,
  streamBytes: bytes.length,
  runs: RUNS,
  medianMs: Math.round(medianMs),
  bestMs: Math.round(times[0]),
  samplesPerSec: Math.round(samplesPerSec),
  samplesPerSecBest: Math.round(SAMPLES / (times[0] / 1000)),
  mibPerSec: Math.round(bytes.length / 1048576 / (medianMs / 1000)),
  goalSamplesPerSec: GOAL,
  ratioToGoal: Number((samplesPerSec / GOAL).toFixed(2)),
  bytesPerSampleByteSize: Number(byteSizeBytesPerSample.toFixed(1)),
  bytesPerSampleMeasured: Number(measuredBytesPerSample.toFixed(1)),
  node: process.version,
};
console.log(`median decode+store: ${result.medianMs} ms = ${result.samplesPerSec.toLocaleString('en-US')} samples/s (${result.mibPerSec} MiB/s), ${result.ratioToGoal}x the ${GOAL.toLocaleString('en-US')}/s goal`);
console.log(`best run: ${result.bestMs} ms = ${result.samplesPerSecBest.toLocaleString('en-US')} samples/s (the median is the figure to quote; the best shows what a quiet machine does)`);
console.log(`bytes per stored sample: ${result.bytesPerSampleByteSize} by rec.byteSize(), ${result.bytesPerSampleMeasured} by heap+arrayBuffers delta`);
console.log(`stacks: ${STACKS} distinct on the wire, ${stackCount} stored (an incomplete sample's stack gets the synthetic root, so it differs)`);
console.log(JSON.stringify(result));
