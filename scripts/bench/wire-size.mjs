// Wire size: bytes per sample on the socket and in the .clrscope file, for the two cases of
// issue 17, recorded live from test/targets/WireLoad under the profiler at the defaults
// (10 ms, CPU and wall, 64 wall threads per tick):
//   lock    200 threads blocked on one lock (many threads, one stack)
//   stacks  2 CPU-bound threads over 4,913 distinct call paths (many stacks)
// Steady state is the second half of the run: bytes and samples that arrived after the midpoint
// (the definitions sent early are then mostly behind). The baseline is wire v1 in the same run:
// the very same samples re-encoded as v1 SAMPLE records (every sample with its frames), which is
// what the profiler sent before v2. Run after `npm run build`, build:native and build:targets:
//   node scripts/bench/wire-size.mjs [--seconds 60] [--cases lock,stacks] [--keep DIR]
// --keep writes each case's stream as received (DIR/<case>.wire) for a closer look.
// Prints a readable report and, last, one JSON line.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, cases: { type: 'string', default: 'lock,stacks' }, keep: { type: 'string' } } });
const seconds = Number(values.seconds);
const target = join(root, 'test/targets/WireLoad/bin/out/WireLoad.dll');
for (const [path, what] of [[join(root, 'dist/structs/wire/decoder.js'), 'dist/ (npm run build)'], [target, 'WireLoad (npm run build:targets)'], [join(root, 'native-profiler/build/libclrscope.so'), 'the profiler (npm run build:native)']]) {
  if (!existsSync(path)) {
    console.error(`wire-size: ${what} is missing.`);
    process.exit(2);
  }
}
const { startCollector } = await import(dist('electron/services/collector/collector.js'));
const { childEnvironment, profilerLibraryPath } = await import(dist('electron/services/profiler/profiler-env.js'));
const { saveRecording } = await import(dist('structs/formats/clrscope-file/save-recording.js'));
const { recordingFromStream } = await import(dist('structs/profile/recording-from-stream.js'));
const { WireEncoder } = await import(dist('structs/wire/encoder.js'));
const { INCOMPLETE_STACK_FUNCTION_ID } = await import(dist('structs/profile/recording.js'));

const CASES = {
  lock: ['lock', '--threads', '200', '--seconds', String(seconds)],
  stacks: ['stacks', '--threads', '2', '--seconds', String(seconds)],
};

/** The same samples as wire v1 would carry them: a SAMPLE with its frames each (function ids, so v1 needs no FRAME or STACK). */
function v1Bytes(rec, from = 0) {
  const enc = new WireEncoder(1 << 20).preamble(1);
  const meta = rec.meta;
  enc.hello({ pid: meta.pid, flags: meta.flags, mono: meta.startMono, unixNs: meta.startUnixNs, intervalNs: meta.intervalNs, wallThreadsPerTick: meta.wallThreadsPerTick, runtimeVersion: meta.runtimeVersion, profilerVersion: meta.profilerVersion });
  let total = 0;
  const c = rec.sampleColumns();
  for (let i = from; i < rec.sampleCount; i++) {
    const all = rec.stackFrames(c.stackId[i]);
    const frames = all.length > 0 && all[all.length - 1] === INCOMPLETE_STACK_FUNCTION_ID ? all.subarray(0, all.length - 1) : all;
    enc.sample({ mono: c.mono[i], threadId: c.threadId[i], flags: c.flags[i], cpuNs: c.cpuNs[i], wallNs: c.wallNs[i], frames });
    if (enc.byteLength > 1 << 20) total += enc.takeBytes(true).length;
  }
  return total + enc.takeBytes(true).length;
}

/** Bytes of the records that start at or after `from`, by record type. */
function bytesByRecordType(bytes, from) {
  const out = new Map();
  for (let p = 16; p + 5 <= bytes.length;) {
    const size = 4 + bytes.readUInt32LE(p);
    if (p >= from) out.set(bytes[p + 4], (out.get(bytes[p + 4]) ?? 0) + size);
    p += size;
  }
  return out;
}

async function record(name) {
  const collector = await startCollector();
  const chunks = [];
  const marks = [];
  collector.onChunk((stream, chunk) => chunks.push(Buffer.from(chunk)));
  const env = childEnvironment(process.env, { socketPath: collector.socketPath, intervalMs: 10, wall: true, cpu: true }, profilerLibraryPath());
  const child = spawn('dotnet', [target, ...CASES[name]], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  const started = performance.now();
  const timer = setInterval(() => {
    const s = collector.streams[0];
    if (s !== undefined) marks.push({ t: (performance.now() - started) / 1000, bytes: s.bytesReceived, samples: s.recording.sampleCount, stacks: s.recording.stackCount, chunks: chunks.length });
  }, 250);
  const code = await new Promise((done) => child.on('exit', done));
  clearInterval(timer);
  while (collector.streams.length > 0 && collector.streams[0].state === 'open' && performance.now() - started < (seconds + 30) * 1000) await new Promise((r) => setTimeout(r, 50));
  const stream = collector.streams[0];
  await collector.close();
  if (code !== 0 || stream === undefined || stream.state !== 'ended') throw new Error(`${name}: the target exited with ${code}, stream ${stream?.state}: ${stream?.error ?? ''} ${output.slice(-500)}`);
  const rec = stream.recording;
  // The midpoint: the last mark in the first half of the run.
  const mid = marks.filter((m) => m.t <= seconds / 2 + 1).pop();
  const atMid = recordingFromStream(chunks.slice(0, mid.chunks));
  const fileWhole = saveRecording(rec).length;
  const fileHalf = saveRecording(atMid).length;
  const steadySamples = rec.sampleCount - atMid.sampleCount;
  const v1Whole = v1Bytes(rec);
  const v1Steady = v1Bytes(rec, atMid.sampleCount);
  const midBytes = chunks.slice(0, mid.chunks).reduce((n, c) => n + c.length, 0);
  const streamBytes = Buffer.concat(chunks);
  const steadyByType = bytesByRecordType(streamBytes, midBytes);
  if (values.keep !== undefined) writeFileSync(join(values.keep, `${name}.wire`), streamBytes, { flag: 'wx', mode: 0o600 });
  const r = (x) => Number(x.toFixed(2));
  return {
    case: name,
    seconds,
    samples: rec.sampleCount,
    cpuSamples: Array.from(rec.sampleColumns().flags).filter((f) => f & 1).length,
    stacks: rec.stackCount,
    stacksAtMidpoint: atMid.stackCount,
    wireBytes: stream.bytesReceived,
    fileBytes: fileWhole,
    wireBytesPerSample: r(stream.bytesReceived / rec.sampleCount),
    fileBytesPerSample: r(fileWhole / rec.sampleCount),
    steadySamples,
    steadyWireBytesPerSample: r((stream.bytesReceived - midBytes) / steadySamples),
    steadyFileBytesPerSample: r((fileWhole - fileHalf) / steadySamples),
    v1BytesPerSample: r(v1Whole / rec.sampleCount),
    v1SteadyBytesPerSample: r(v1Steady / steadySamples),
    // What the steady-state bytes are: SAMPLES records alone, and the rest (STACK definitions above all).
    steadySamplesRecordBytesPerSample: r((steadyByType.get(0x0d) ?? 0) / steadySamples),
    steadyStackDefinitionBytes: steadyByType.get(0x0b) ?? 0,
    steadyOtherBytes: [...steadyByType].filter(([t]) => t !== 0x0d && t !== 0x0b).reduce((n, [, b]) => n + b, 0),
  };
}

const results = [];
for (const name of values.cases.split(',')) {
  process.stderr.write(`wire-size: recording ${name} for ${seconds} s\n`);
  const res = await record(name);
  results.push(res);
}
for (const r of results) {
  r.ratioWireToV1 = Number((r.v1BytesPerSample / r.wireBytesPerSample).toFixed(1));
  r.ratioSteadyWireTo132 = Number((132 / r.steadyWireBytesPerSample).toFixed(1));
  r.ratioSteadyFileTo132 = Number((132 / r.steadyFileBytesPerSample).toFixed(1));
}
console.log(`WireLoad under the profiler at 10 ms, CPU and wall; steady state = the second half of ${seconds} s; goal <= 12 B/sample (today 132)`);
console.log('case     samples  (cpu)    stacks  wire B/sample  steady wire  (SAMPLES only)  .clrscope B/sample  steady .clrscope  v1 of the same samples  132/steady wire');
for (const r of results) {
  console.log(`${r.case.padEnd(8)} ${String(r.samples).padStart(8)} ${String(r.cpuSamples).padStart(6)} ${String(r.stacks).padStart(9)} ${String(r.wireBytesPerSample).padStart(14)} ${String(r.steadyWireBytesPerSample).padStart(12)} ${String(r.steadySamplesRecordBytesPerSample).padStart(15)} ${String(r.fileBytesPerSample).padStart(19)} ${String(r.steadyFileBytesPerSample).padStart(17)} ${String(r.v1BytesPerSample).padStart(23)} ${String(r.ratioSteadyWireTo132).padStart(16)}`);
  console.log(`         steady state: ${r.steadySamples} samples, ${r.stacks - r.stacksAtMidpoint} stacks first seen (${r.steadyStackDefinitionBytes} bytes of STACK), ${r.steadyOtherBytes} bytes of other records`);
}
console.log(JSON.stringify({ bench: 'wire-size', goalBytesPerSample: 12, baselineBytesPerSample: 132, results, node: process.version, date: new Date().toISOString() }));
