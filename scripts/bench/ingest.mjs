// Ingest benchmark: how fast the workstation turns wire bytes into a stored Recording, and
// how many bytes each stored sample costs. The same synthetic samples are encoded as wire v2
// (what the profiler sends: stacks defined once, samples naming them) and as wire v1 (every
// sample with its frames, what older recordings hold), and both are decoded and stored. Run
// after `npm run build`:
//   node scripts/bench/ingest.mjs [--samples 2000000] [--depth 32] [--stacks 5000] [--functions 2000] [--runs 5]
// Prints a readable report and, last, one JSON line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';

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
const GOAL = 4_000_000;

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

function synthesize(version) {
  const stacks = makeStacks();
  // Reset so both versions get the very same samples.
  seed = 0x2545f491;
  const enc = new WireEncoder(version === 1 ? SAMPLES * (36 + 4 * DEPTH) + FUNCTIONS * 64 + 4096 : SAMPLES * 12 + STACKS * DEPTH * 3 + FUNCTIONS * 80 + 4096);
  const mono0 = 1_000_000_000;
  enc.preamble(version).hello({ pid: 1, flags: 3, mono: mono0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.0', profilerVersion: 'bench' });
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 1000 + t, clrThreadId: 0x7f0000000000 + t, mono: mono0, name: `worker-${t}` });
  for (let f = 1; f <= FUNCTIONS; f++) {
    enc.function({ functionId: f, kind: f % 10 === 0 ? 1 : 0, name: `Bench.Namespace.Type${f % 97}.Method${f}`, module: f % 10 === 0 ? 'libcoreclr.so' : 'Bench.dll', file: '' });
    if (version === 2) enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  // v2: each stack defined before its first sample, as the profiler does.
  const defined = new Uint8Array(STACKS * 2);
  const s = { mono: 0, threadId: 0, flags: 0, cpuNs: 0, wallNs: 0, frames: stacks[0] };
  for (let i = 0; i < SAMPLES; i++) {
    // Skewed popularity: a few hot stacks take most samples, as in real profiles.
    const r = rand();
    const k = Math.floor(r * r * r * STACKS);
    s.frames = stacks[k];
    s.mono = mono0 + i * 1000;
    s.threadId = 1 + (i % THREADS);
    s.flags = rand() < 0.02 ? 7 : 3;
    s.cpuNs = 9_000_000 + pick(2_000_000);
    s.wallNs = 10_000_000;
    if (version === 1) enc.sample(s);
    else {
      const incomplete = (s.flags & 4) !== 0 ? 1 : 0;
      const id = 2 * k + incomplete + 1;
      if (defined[id - 1] === 0) {
        defined[id - 1] = 1;
        enc.stack(id, s.flags & 4, s.frames);
      }
      enc.stackSample(s.mono, s.threadId, s.flags & 3, s.cpuNs, s.wallNs, id);
    }
  }
  enc.end({ mono: mono0 + SAMPLES * 1000, reason: 0 });
  return enc.bytes();
}

function ingest(bytes) {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
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

function measure(version) {
  const tSynth = performance.now();
  const bytes = synthesize(version);
  console.log(`wire v${version}: synthesized ${SAMPLES.toLocaleString('en-US')} samples, depth ${DEPTH}, ${STACKS} stacks over ${FUNCTIONS} functions: ${(bytes.length / 1048576).toFixed(1)} MiB (${(bytes.length / SAMPLES).toFixed(1)} B/sample) in ${((performance.now() - tSynth) / 1000).toFixed(1)} s`);
  const times = [];
  const cpuTimes = [];
  let stackCount = 0;
  for (let run = 0; run < RUNS; run++) {
    globalThis.gc();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const rec = ingest(bytes);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    // CPU time of this process (its GC helper threads included): on a shared machine the wall
    // clock also counts the time other processes held the cores.
    const cpuMs = (cpu.user + cpu.system) / 1000;
    times.push(ms);
    cpuTimes.push(cpuMs);
    if (rec.sampleCount !== SAMPLES) throw new Error(`stored ${rec.sampleCount} samples, expected ${SAMPLES}`);
    stackCount = rec.stackCount;
    console.log(`  run ${run + 1}: ${ms.toFixed(0)} ms, ${Math.round(SAMPLES / (ms / 1000)).toLocaleString('en-US')} samples/s (CPU ${cpuMs.toFixed(0)} ms)`);
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const medianMs = times[Math.floor(times.length / 2)];
  return { bytes, medianMs, bestMs: times[0], medianCpuMs: cpuTimes[Math.floor(cpuTimes.length / 2)], stackCount };
}

const v2 = measure(2);
const v1 = measure(1);

// Memory: what the heap and array buffers grow by when one recording is built and kept.
await settle();
const before = memory();
let rec = ingest(v2.bytes);
await settle();
const after = memory();
const measuredBytesPerSample = (after - before) / SAMPLES;
const byteSizeBytesPerSample = rec.byteSize() / SAMPLES;
rec = undefined;

const samplesPerSec = SAMPLES / (v2.medianMs / 1000);
const result = {
  bench: 'ingest',
  samples: SAMPLES,
  depth: DEPTH,
  wireStacks: STACKS,
  storedStacks: v2.stackCount,
  functions: FUNCTIONS,
  chunkBytes: CHUNK,
  streamBytes: v2.bytes.length,
  streamBytesV1: v1.bytes.length,
  runs: RUNS,
  medianMs: Math.round(v2.medianMs),
  bestMs: Math.round(v2.bestMs),
  samplesPerSec: Math.round(samplesPerSec),
  samplesPerSecBest: Math.round(SAMPLES / (v2.bestMs / 1000)),
  samplesPerSecV1: Math.round(SAMPLES / (v1.medianMs / 1000)),
  samplesPerCpuSec: Math.round(SAMPLES / (v2.medianCpuMs / 1000)),
  samplesPerCpuSecV1: Math.round(SAMPLES / (v1.medianCpuMs / 1000)),
  loadAverage: loadavg()[0],
  goalSamplesPerSec: GOAL,
  ratioToGoal: Number((samplesPerSec / GOAL).toFixed(2)),
  ratioV2ToV1: Number((v1.medianMs / v2.medianMs).toFixed(2)),
  bytesPerSampleByteSize: Number(byteSizeBytesPerSample.toFixed(1)),
  bytesPerSampleMeasured: Number(measuredBytesPerSample.toFixed(1)),
  node: process.version,
};
console.log(`wire v2 median decode+store: ${result.medianMs} ms = ${result.samplesPerSec.toLocaleString('en-US')} samples/s, ${result.ratioToGoal}x the ${GOAL.toLocaleString('en-US')}/s goal (best run ${result.samplesPerSecBest.toLocaleString('en-US')}/s)`);
console.log(`by CPU time (median): v2 ${result.samplesPerCpuSec.toLocaleString('en-US')} samples per CPU-second, ${(result.samplesPerCpuSec / GOAL).toFixed(2)}x the goal; v1 ${result.samplesPerCpuSecV1.toLocaleString('en-US')}; load average ${result.loadAverage.toFixed(1)}`);
console.log(`wire v1 (older files) median: ${result.samplesPerSecV1.toLocaleString('en-US')} samples/s; v2 is ${result.ratioV2ToV1}x faster on the same samples`);
console.log(`bytes per stored sample: ${result.bytesPerSampleByteSize} by rec.byteSize(), ${result.bytesPerSampleMeasured} by heap+arrayBuffers delta`);
console.log(`stacks: ${STACKS} distinct, ${v2.stackCount} stored (an incomplete sample's stack gets the synthetic root, so it differs)`);
console.log(JSON.stringify(result));
