// Export and import of a large recording as .nettrace: seconds and peak memory, beside
// `dotnet-trace convert --format speedscope` on the same file (the closest thing the .NET tools
// do: read a .nettrace of that size with TraceEvent and write another format). Run after
// `npm run build`:
//   node scripts/bench/formats.mjs [--samples 10000000] [--threads 16] [--stacks 5000] [--depth 24] [--functions 2000] [--no-dotnet-trace]
// Each measurement runs in its own process so its peak RSS is its own. Prints a readable report
// and, last, one JSON line.
import { spawnSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdtempSync, openSync, rmSync, statSync, statfsSync, writeSync } from 'node:fs';
import { freemem, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { dotnetTraceTool } from './dotnet-trace-tool.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '10000000' },
    threads: { type: 'string', default: '16' },
    stacks: { type: 'string', default: '5000' },
    depth: { type: 'string', default: '24' },
    functions: { type: 'string', default: '2000' },
    phase: { type: 'string' },
    file: { type: 'string' },
    'no-dotnet-trace': { type: 'boolean' },
  },
});
const SAMPLES = Number(values.samples);
const THREADS = Number(values.threads);
const STACKS = Number(values.stacks);
const DEPTH = Number(values.depth);
const FUNCTIONS = Number(values.functions);
const MiB = 1024 * 1024;

if (!existsSync(join(root, 'dist', 'structs', 'formats', 'nettrace', 'recording-to-nettrace.js'))) {
  console.error('dist/ is missing or stale; run npm run build first.');
  process.exit(1);
}

// Peak memory inside a phase: the process's maximum RSS (kernel's figure) and the largest JS
// heap + array buffers seen at progress callbacks.
let peakHeap = 0;
const notePeak = () => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
};
const maxRssMiB = () => process.resourceUsage().maxRSS / 1024;

/** A deterministic recording of SAMPLES samples, streamed through the wire decoder in batches. */
async function synthesize() {
  const { WireEncoder } = await import(dist('structs/wire/encoder.js'));
  const { WireDecoder } = await import(dist('structs/wire/decoder.js'));
  const { Recording } = await import(dist('structs/profile/recording.js'));
  let seed = 0x2545f491;
  const rand = () => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  const pick = (n) => Math.floor(rand() * n);
  const trunks = Array.from({ length: 40 }, () => Array.from({ length: 8 }, () => 1 + pick(FUNCTIONS)));
  const seen = new Set();
  const stacks = [];
  while (stacks.length < STACKS) {
    const rootFirst = trunks[pick(trunks.length)].slice(0, DEPTH);
    while (rootFirst.length < DEPTH) rootFirst.push(1 + pick(FUNCTIONS));
    const key = rootFirst.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    stacks.push(Uint32Array.from(rootFirst.reverse()));
  }
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const mono0 = 1_000_000_000;
  const enc = new WireEncoder(1 << 22);
  enc.preamble().hello({ pid: 4242, flags: 3, mono: mono0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: 'bench' });
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 1000 + t, clrThreadId: 0x7f0000000000 + t, mono: mono0, name: `worker-${t}` });
  for (let f = 1; f <= FUNCTIONS; f++) {
    const native = f % 10 === 0;
    enc.function({ functionId: f, kind: native ? 1 : 0, name: native ? `native_fn_${f}` : `Bench.Namespace.Type${f % 97}.Method${f}`, module: native ? 'libcoreclr.so' : 'Bench.dll', file: '' });
  }
  const s = { mono: 0, threadId: 0, flags: 0, cpuNs: 0, wallNs: 0, frames: stacks[0] };
  for (let i = 0; i < SAMPLES; i++) {
    const r = rand();
    s.frames = stacks[Math.floor(r * r * r * STACKS)];
    s.mono = mono0 + i * 1000;
    s.threadId = 1 + (i % THREADS);
    s.flags = rand() < 0.3 ? 2 : 3;
    s.cpuNs = s.flags === 3 ? 9_000_000 + pick(2_000_000) : 0;
    s.wallNs = 10_000_000;
    enc.sample(s);
    if (i % 200 === 0 && i > 0) {
      // A GC pause now and then, so the export carries GC events too.
      if (i % 20_000 === 0) enc.suspension({ mono: s.mono - 500, durationNs: 400, suspendNs: 50, reason: 1, generation: i % 3, flags: 0 });
      // takeBytes keeps the encoder's stream state: wire v2 codes each sample against earlier ones.
      if (enc.byteLength > 1 << 22) decoder.push(enc.takeBytes(true));
    }
  }
  enc.end({ mono: mono0 + SAMPLES * 1000, reason: 0 });
  decoder.push(enc.takeBytes(true));
  decoder.end();
  rec.finish();
  return rec;
}

async function phaseWrite(file) {
  const { nettraceChunks } = await import(dist('structs/formats/nettrace/recording-to-nettrace.js'));
  const t0 = performance.now();
  const rec = await synthesize();
  const synthSeconds = (performance.now() - t0) / 1000;
  const rssAfterSynth = process.memoryUsage().rss / MiB;
  notePeak();
  const fd = openSync(file, 'w');
  const t1 = performance.now();
  for (const chunk of nettraceChunks(rec, { onProgress: notePeak })) writeSync(fd, chunk);
  closeSync(fd);
  const seconds = (performance.now() - t1) / 1000;
  notePeak();
  return {
    samples: rec.sampleCount, stacks: rec.stackCount, recordingMiB: rec.byteSize() / MiB, synthSeconds, rssAfterSynthMiB: rssAfterSynth,
    seconds, fileBytes: statSync(file).size, peakRssMiB: maxRssMiB(), peakHeapMiB: peakHeap / MiB,
  };
}

async function phaseRead(file) {
  const { fromNettraceAsync } = await import(dist('structs/formats/nettrace/nettrace-reader.js'));
  const t0 = performance.now();
  const rec = await fromNettraceAsync(createReadStream(file, { highWaterMark: MiB }), { onProgress: notePeak });
  const seconds = (performance.now() - t0) / 1000;
  notePeak();
  return { samples: rec.sampleCount, stacks: rec.stackCount, suspensions: rec.suspensions().length, seconds, peakRssMiB: maxRssMiB(), peakHeapMiB: peakHeap / MiB };
}

if (values.phase !== undefined) {
  const result = values.phase === 'write' ? await phaseWrite(values.file) : await phaseRead(values.file);
  console.log(JSON.stringify(result));
  process.exit(0);
}

function child(phase, file) {
  const args = [fileURLToPath(import.meta.url), '--phase', phase, '--file', file, '--samples', String(SAMPLES), '--threads', String(THREADS), '--stacks', String(STACKS), '--depth', String(DEPTH), '--functions', String(FUNCTIONS)];
  const r = spawnSync(process.execPath, ['--max-old-space-size=8192', ...args], { encoding: 'utf8', maxBuffer: 16 * MiB });
  if (r.status !== 0) throw new Error(`${phase} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const dotnetTrace = () => dotnetTraceTool(root, values['no-dotnet-trace']);

// Measured here: dotnet-trace convert holds about 2.1 KB of memory and writes about 2.7 KB of
// JSON per sample (10M samples: 20.2 GiB peak RSS, 26 GB of speedscope JSON). Refuse to start
// it where it would exhaust the machine, and say so.
const CONVERT_RSS_PER_SAMPLE = 2200;
const CONVERT_JSON_PER_SAMPLE = 2800;
function convertFits(dir) {
  const memory = CONVERT_RSS_PER_SAMPLE * SAMPLES;
  const disk = CONVERT_JSON_PER_SAMPLE * SAMPLES;
  const fs = statfsSync(dir);
  const freeDisk = fs.bavail * fs.bsize;
  if (freemem() < memory) return `it needs about ${(memory / 2 ** 30).toFixed(1)} GiB of memory and ${(freemem() / 2 ** 30).toFixed(1)} GiB are free`;
  if (freeDisk < disk) return `it writes about ${(disk / 1e9).toFixed(1)} GB of JSON and ${(freeDisk / 1e9).toFixed(1)} GB are free in ${dir}`;
  return undefined;
}

/** `dotnet-trace convert --format speedscope FILE` under /usr/bin/time for its peak RSS. */
function speedscope(tool, file, out) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'MAXRSS_KB %M', tool, 'convert', '--format', 'speedscope', '-o', out, file], { encoding: 'utf8', maxBuffer: 64 * MiB });
  const seconds = (performance.now() - t0) / 1000;
  const rss = /MAXRSS_KB (\d+)/.exec(r.stderr);
  const written = [out, out.replace(/\.json$/, '') + '.speedscope.json'].find((p) => existsSync(p));
  if (r.status !== 0 || written === undefined) return { ok: false, seconds, why: (r.stdout + r.stderr).trim().split('\n').slice(-3).join(' ') };
  return { ok: true, seconds, peakRssMiB: rss ? Number(rss[1]) / 1024 : undefined, outBytes: statSync(written).size };
}

const scratch = mkdtempSync(join(tmpdir(), 'clrscope-bench-formats-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const file = join(scratch, 'bench.nettrace');
console.log(`recording: ${SAMPLES.toLocaleString('en-US')} samples on ${THREADS} threads, ${STACKS} stacks of depth ${DEPTH} over ${FUNCTIONS} functions`);
const write = child('write', file);
console.log(`synthesized in ${write.synthSeconds.toFixed(1)} s: Recording ${write.recordingMiB.toFixed(0)} MiB (RSS ${write.rssAfterSynthMiB.toFixed(0)} MiB before export)`);
console.log(`nettrace write: ${write.seconds.toFixed(1)} s, ${(write.fileBytes / MiB).toFixed(0)} MiB file, peak RSS ${write.peakRssMiB.toFixed(0)} MiB (recording included), peak heap+buffers ${write.peakHeapMiB.toFixed(0)} MiB`);
const read = child('read', file);
console.log(`nettrace read:  ${read.seconds.toFixed(1)} s, ${read.samples.toLocaleString('en-US')} samples, ${read.suspensions} suspensions, peak RSS ${read.peakRssMiB.toFixed(0)} MiB, peak heap+buffers ${read.peakHeapMiB.toFixed(0)} MiB`);
const trace = await dotnetTrace();
let convert;
const wontFit = trace.path !== undefined ? convertFits(scratch) : undefined;
if (wontFit !== undefined) {
  convert = { ok: false, why: `not run: ${wontFit}` };
  console.log(`dotnet-trace convert --format speedscope: not run: ${wontFit}`);
} else if (trace.path !== undefined) {
  convert = speedscope(trace.path, file, join(scratch, 'bench.speedscope.json'));
  if (convert.ok) console.log(`dotnet-trace convert --format speedscope (same file): ${convert.seconds.toFixed(1)} s, peak RSS ${convert.peakRssMiB?.toFixed(0)} MiB, ${(convert.outBytes / MiB).toFixed(0)} MiB of JSON`);
  else console.log(`dotnet-trace convert --format speedscope (same file): failed after ${convert.seconds.toFixed(1)} s: ${convert.why}`);
} else {
  console.log(`dotnet-trace: not measured: ${trace.why}`);
}
console.log(JSON.stringify({ bench: 'formats', samples: SAMPLES, threads: THREADS, stacks: STACKS, depth: DEPTH, functions: FUNCTIONS, write, read, dotnetTraceSpeedscope: convert ?? { ok: false, why: trace.why }, node: process.version }));
