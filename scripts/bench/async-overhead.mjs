// What async call stacks (issue 14, design A: CLRSCOPE_ASYNC=1, TplEventSource read in-process)
// cost a program whose time is mostly awaits: AsyncChain's tight-await loop (`awaits`), each step
// an async method that yields (a thread-pool hop) and then does W µs of fixed CPU work, two
// continuations per step. W is calibrated first, on plain runs, so that a step costs the CPU of
// 2 continuations at about 10k and 100k continuations per second of one core. Configurations, interleaved run by run so
// drift hits all alike: plain; clrscope record (async off); clrscope record with CLRSCOPE_ASYNC=1
// (TPL events, approach A); clrscope record with CLRSCOPE_ASYNC=heap (the chain read from the heap
// at sample time, approach B).
// Two figures per run, both from the program itself: its wall throughput (steps/s) and the
// process's CPU per step (its own threads plus the profiler's, TotalProcessorTime over the loop);
// on a machine shared with other work the CPU figure is the steadier one. Ratios are of medians,
// all from this one invocation.
//
// The peer: dotnet-trace collecting the same TplEventSource keywords (0x29 at level 4, the events
// clrscope reads) from the same workload into a .nettrace file (out of process, through the
// runtime's EventPipe IPC session), when it can be found or installed (dotnet-trace-tool.mjs).
// For every configuration the CPU beside the program is measured too (the whole process tree's
// CPU, bash's `times`, minus the program's own at its exit): clrscope's collector, or dotnet-trace.
// The last trace of each rate is read by TraceEvent (test/tools/TraceCheck) for its event count
// and the events EventPipe reports lost.
//
// With --baseline LIB, one more configuration: async on with another build of the profiler
// (CLRSCOPE_PROFILER_PATH=LIB, e.g. the previous commit's), and the ratio of this build to it.
//
//   node scripts/bench/async-overhead.mjs [--runs 5] [--seconds 3] [--rates 10000,100000] [--baseline LIB] [--no-dotnet-trace]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dotnetTraceTool } from './dotnet-trace-tool.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, seconds: { type: 'string', default: '3' }, rates: { type: 'string', default: '10000,100000' }, baseline: { type: 'string' }, 'no-dotnet-trace': { type: 'boolean' } } });
const dll = join(root, 'test/targets/AsyncChain/bin/out/AsyncChain.dll');
if (!existsSync(dll)) {
  console.error(`async-overhead: ${dll} is not built; run bash scripts/build-targets.sh`);
  process.exit(2);
}
const runs = Number(values.runs);
const seconds = values.seconds;
const rates = values.rates.split(',').map(Number);
if (!(runs >= 1) || !(Number(seconds) > 0) || rates.some((r) => !(r > 0))) {
  console.error('async-overhead: --runs, --seconds and --rates must be positive numbers');
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-async-bench-'));
const cli = join(root, 'electron/cli/clrscope.js');
const configs = [
  { name: 'plain', cmd: 'dotnet', pre: [], env: {} },
  { name: 'clrscope, async off', cmd: process.execPath, pre: [cli, 'record', '-o', join(scratch, 'off.pb.gz'), '--', 'dotnet'], env: { CLRSCOPE_ASYNC: '0' } },
  { name: 'clrscope, CLRSCOPE_ASYNC=1', cmd: process.execPath, pre: [cli, 'record', '-o', join(scratch, 'on.pb.gz'), '--', 'dotnet'], env: { CLRSCOPE_ASYNC: '1' } },
  // Approach B (ASYNC-STACKS-STUDY.md): the chain read from the heap at sample time, no TPL events.
  { name: 'clrscope, CLRSCOPE_ASYNC=heap', cmd: process.execPath, pre: [cli, 'record', '-o', join(scratch, 'heap.pb.gz'), '--', 'dotnet'], env: { CLRSCOPE_ASYNC: 'heap' } },
];
if (values.baseline !== undefined) {
  if (!existsSync(values.baseline)) {
    console.error(`async-overhead: --baseline ${values.baseline} does not exist`);
    process.exit(2);
  }
  configs.push({ name: 'clrscope, CLRSCOPE_ASYNC=1, baseline build', cmd: process.execPath, pre: [cli, 'record', '-o', join(scratch, 'base.pb.gz'), '--', 'dotnet'], env: { CLRSCOPE_ASYNC: '1', CLRSCOPE_PROFILER_PATH: resolve(values.baseline) } });
}
const trace = await dotnetTraceTool(root, values['no-dotnet-trace']);
const TPL_PROVIDER = 'System.Threading.Tasks.TplEventSource:0x29:4';
const traceFile = join(scratch, 'tpl.nettrace');
const traced = trace.path === undefined ? -1 : configs.length;
if (trace.path !== undefined) {
  configs.push({ name: `dotnet-trace, ${TPL_PROVIDER}`, cmd: trace.path, pre: ['collect', '--show-child-io', '--providers', TPL_PROVIDER, '-o', traceFile, '--', 'dotnet'], env: {} });
}
const traceCheck = join(root, 'test/tools/TraceCheck/bin/out/TraceCheck.dll');

const cpuSeconds = (text) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(text);
  return m === null ? Number.NaN : Number(m[1]) * 60 + Number(m[2]);
};

function once(config, workUs, secs = seconds) {
  // bash's `times` prints the CPU of the shell's finished children: the whole process tree
  // (the program, and the collector or dotnet-trace).
  const args = [...config.pre, dll, 'awaits', '--seconds', String(secs), '--work-us', workUs.toFixed(3)];
  const r = spawnSync('bash', ['-c', '"$@"; status=$?; echo CHILDCPU; times; exit $status', '_', config.cmd, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, ...config.env },
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  const tree = /CHILDCPU\n\S+ \S+\n(\S+) (\S+)/.exec(r.stdout);
  if (r.status !== 0 || line === undefined || tree === null) throw new Error(`${config.name} (work ${workUs} µs) failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const result = JSON.parse(line.slice(7));
  result.outsideCpuMs = (cpuSeconds(tree[1]) + cpuSeconds(tree[2])) * 1000 - result.processCpuMs;
  if (config === configs[traced]) result.traceBytes = statSync(traceFile).size;
  return result;
}

/** TraceEvent's count of a trace's events and of those EventPipe reported lost. */
function readTrace() {
  if (!existsSync(traceCheck) || !existsSync(traceFile)) return null;
  const r = spawnSync('dotnet', [traceCheck, traceFile, '--top', '1'], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').pop() };
  const j = JSON.parse(r.stdout);
  return { events: j.events, eventsLost: j.eventsLost };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// The rate is set in CPU terms: the work per step W is chosen so that one step costs 2e6/rate µs
// of CPU (the await's own cost, measured on plain runs at W = 0, plus W), i.e. the rate a core of
// its own would run at. The wall rate on a machine shared with other work is lower and is
// reported as measured.
function calibrate(rate) {
  const costs = [0, 1, 2].map(() => once(configs[0], 0, 1).cpuUsPerStep).sort((a, b) => a - b);
  return Math.max(0, 2e6 / rate - costs[1]);
}

const workloads = rates.map((rate) => ({ rate, workUs: calibrate(rate) }));
process.stderr.write(`async-overhead: work per step ${workloads.map((w) => `${w.workUs.toFixed(2)} µs for ${w.rate}/s`).join(', ')}\n`);
const results = workloads.map(() => configs.map(() => []));
const traces = workloads.map(() => null);
for (let run = 0; run < runs; run++) {
  workloads.forEach((w, wi) => configs.forEach((c, ci) => {
    results[wi][ci].push(once(c, w.workUs));
    // The last run's trace of this rate, read before the next run overwrites it.
    if (ci === traced && run === runs - 1) traces[wi] = readTrace();
  }));
  process.stderr.write(`async-overhead: run ${run + 1}/${runs} done\n`);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`Runs: ${runs}, interleaved, ${seconds} s each; .NET 10; ${new Date().toISOString().slice(0, 10)}\n`);
workloads.forEach((w, wi) => {
  const rate = results[wi].map((rs) => median(rs.map((r) => r.stepsPerSecond * 2)));
  const cpu = results[wi].map((rs) => median(rs.map((r) => r.cpuUsPerStep)));
  const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  console.log(`#### about ${w.rate} continuations/s (work ${w.workUs.toFixed(2)} µs per step)\n`);
  console.log('| config | continuations/s (median) | slowdown vs plain | vs async off | CPU µs/step (median) | (min–max) | CPU ratio vs plain | vs async off | CPU beside the program, ms per run (median) |\n|---|---|---|---|---|---|---|---|---|');
  configs.forEach((c, ci) => {
    const vsOff = ci === 0 ? '–' : (rate[1] / rate[ci]).toFixed(3);
    const cpuOff = ci === 0 ? '–' : (cpu[ci] / cpu[1]).toFixed(3);
    const outside = median(results[wi][ci].map((r) => r.outsideCpuMs));
    console.log(`| ${c.name} | ${Math.round(rate[ci])} | ${(rate[0] / rate[ci]).toFixed(3)} | ${vsOff} | ${cpu[ci].toFixed(2)} | ${range(results[wi][ci].map((r) => r.cpuUsPerStep))} | ${(cpu[ci] / cpu[0]).toFixed(3)} | ${cpuOff} | ${Math.round(outside)} |`);
  });
  const asyncOn = configs.findIndex((c) => c.name === 'clrscope, CLRSCOPE_ASYNC=1');
  if (values.baseline !== undefined) console.log(`\nThis build's async on vs the baseline build's: CPU per step ×${(cpu[asyncOn] / cpu[4]).toFixed(3)}, continuations/s ×${(rate[asyncOn] / rate[4]).toFixed(3)}.`);
  if (traced >= 0) {
    const bytes = median(results[wi][traced].map((r) => r.traceBytes / r.steps));
    const t = traces[wi];
    const read = t === null ? 'not read (TraceCheck not built)' : t.error !== undefined ? `not read: ${t.error}` : `${t.events.toLocaleString('en-US')} events read by TraceEvent in the last run's trace, ${t.eventsLost.toLocaleString('en-US')} reported lost`;
    console.log(`\ndotnet-trace vs clrscope with async stacks, the program's CPU per step: ×${(cpu[traced] / cpu[asyncOn]).toFixed(3)}; its .nettrace ${bytes.toFixed(0)} bytes per step (median); ${read}.`);
  } else {
    console.log(`\ndotnet-trace: not measured: ${trace.why}`);
  }
  console.log('');
});
