// Measuring methods exactly (issue 15): what a measured call costs, and how soon counts arrive.
//
// 1. Cost per call. test/targets/Measure `bench` times two loops in alternating chunks, one over
//    Bench.Trivial and one over its twin Bench.TrivialTwin (both NoInlining: a real call each),
//    and prints the median and the fastest chunk's ns per call of each (on a shared machine the
//    fastest chunks are the ones nothing else interrupted). Run under `clrscope measure -m ...Bench.Trivial`
//    the first loop's calls go through the probes; the difference is their cost. Every way of
//    reaching the probes is run (CLRSCOPE_PROBE_CALL): an unmanaged calli without a GC transition
//    (the default), the same with the transition, and a P/Invoke defined through metadata with
//    and without SuppressGCTransition; plus the program with no profiler at all, whose difference
//    shows the noise. Configurations are interleaved over --runs runs.
// 2. Time to first counts. A program calls Bench.Trivial in a loop; the clock starts when the
//    MEASURE command is sent and stops when the first MEASURE_FIGURES with calls arrives: the
//    profiler's worker prepares the IL, asks for the ReJIT, the next call compiles the wrapped
//    body, and the sampler thread sends figures every 250 ms. For a launched program and for one
//    attached to.
//
//   npm run build && node scripts/bench/measure-cost.mjs [--runs 5] [--seconds 2] [--first 5]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, seconds: { type: 'string', default: '2' }, first: { type: 'string', default: '5' } } });
const target = join(root, 'test/targets/Measure/bin/out/Measure.dll');
const cli = join(root, 'electron/cli/clrscope.js');
const library = join(root, 'native-profiler/build/libclrscope.so');
for (const [path, how] of [[target, 'bash scripts/build-targets.sh'], [library, 'npm run build:native'], [join(root, 'dist/electron/services/measure/measure-channel.js'), 'npm run build']]) {
  if (!existsSync(path)) {
    console.error(`measure-cost: ${path} is missing; run ${how}`);
    process.exit(2);
  }
}
const { MeasureChannels } = await import(join(root, 'dist/electron/services/measure/measure-channel.js'));
const { launchProfiled, delay } = await import(join(root, 'dist/electron/services/recording/profiled-launch.js'));
const { attachProfiled } = await import(join(root, 'dist/electron/services/recording/profiled-attach.js'));

const TRIVIAL = 'Clrscope.Targets.Measure.Bench.Trivial';
const benchArgs = [target, 'bench', '--seconds', values.seconds];
const configs = [
  { name: 'no profiler', cmd: 'dotnet', args: benchArgs, env: {} },
  { name: 'calli, no GC transition (default)', mode: 'calli' },
  { name: 'calli, GC transition', mode: 'calli-transition' },
  { name: 'P/Invoke, SuppressGCTransition', mode: 'pinvoke-suppress' },
  { name: 'P/Invoke', mode: 'pinvoke' },
].map((c) => c.mode === undefined ? c : { ...c, cmd: process.execPath, args: [cli, 'measure', '--json', '-m', TRIVIAL, '--', 'dotnet', ...benchArgs], env: { CLRSCOPE_PROBE_CALL: c.mode } });

function once(config) {
  const r = spawnSync(config.cmd, config.args, { encoding: 'utf8', env: { ...process.env, ...config.env }, maxBuffer: 16 << 20 });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || line === undefined) throw new Error(`${config.name} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const result = JSON.parse(line.slice(7));
  if (config.mode !== undefined) {
    const methods = JSON.parse(r.stdout.trim().split('\n').pop());
    const trivial = methods.find((m) => m.name === TRIVIAL);
    if (trivial?.calls !== result.callsOfTrivial) throw new Error(`${config.name}: measured ${trivial?.calls} calls, the program made ${result.callsOfTrivial}`);
  }
  return { median: result.measuredNsPerCall - result.plainNsPerCall, fastest: result.measuredFastestNsPerCall - result.plainFastestNsPerCall };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const costs = new Map(configs.map((c) => [c.name, []]));
for (let run = 0; run < Number(values.runs); run++) {
  for (const c of configs) costs.get(c.name).push(once(c));
  process.stderr.write(`run ${run + 1}/${values.runs} done\n`);
}
console.log(`\nCost of a measured call (ns per call: the measured loop minus its unmeasured twin), ${values.runs} interleaved runs of ${values.seconds} s`);
console.log('| probes reached through | fastest chunks (median over runs) | median chunks (median over runs) | median chunks, worst run |');
console.log('|---|---|---|---|');
for (const c of configs) {
  const xs = costs.get(c.name);
  const fastest = xs.map((x) => x.fastest);
  const med = xs.map((x) => x.median);
  console.log(`| ${c.name} | ${median(fastest).toFixed(1)} | ${median(med).toFixed(1)} | ${Math.max(...med).toFixed(1)} |`);
}

/** Sends MEASURE, returns ms until the first figures with calls arrive. */
async function timeToFirstCounts(channel) {
  await channel.waitReady(10000);
  const start = performance.now();
  const reply = await channel.measure(TRIVIAL);
  if (reply.matched !== 1) throw new Error(`expected one method, got: ${reply.message}`);
  const ok = await channel.until(() => channel.measurements.methods().some((m) => m.calls > 0), 10000);
  if (!ok) throw new Error('no counts within 10 s');
  return performance.now() - start;
}

const launched = [];
const attached = [];
for (let i = 0; i < Number(values.first); i++) {
  {
    const channels = new MeasureChannels();
    const launch = await launchProfiled({ command: 'dotnet', args: [target, '--do', 'spin:8'], intervalMs: 10, cpu: false, wall: false, libraryPath: library, onChunk: channels.onChunk, output: () => undefined });
    try {
      let stream;
      while ((stream = launch.collector.streams.find((s) => s.pid === launch.pid)) === undefined) await delay(20);
      await delay(1000);  // the loop is running
      launched.push(await timeToFirstCounts(channels.of(stream)));
    } finally {
      await launch.collector.close();
      await launch.stopProgram();
      await launch.finish();
    }
  }
  {
    const child = spawn('dotnet', [target, '--do', 'spin:10'], { stdio: 'ignore' });
    try {
      await delay(1500);
      const channels = new MeasureChannels();
      const attach = await attachProfiled({ pid: child.pid, intervalMs: 10, cpu: false, wall: false, libraryPath: library, onChunk: channels.onChunk });
      try {
        attached.push(await timeToFirstCounts(channels.of(attach.stream)));
      } finally {
        await attach.detach();
      }
    } finally {
      child.kill('SIGKILL');
    }
  }
}
console.log(`\nTime from the MEASURE command to the first counts (ms), ${values.first} programs each`);
console.log('| | median | max |');
console.log('|---|---|---|');
console.log(`| launched program | ${median(launched).toFixed(0)} | ${Math.max(...launched).toFixed(0)} |`);
console.log(`| attached program | ${median(attached).toFixed(0)} | ${Math.max(...attached).toFixed(0)} |`);
