// What the live heap (weak handles to sampled allocations, swept after each GC) costs the
// program, beside allocation sampling alone. Workloads: Scenarios' live-heap (a list of small
// objects growing to the end while as many die at once) and alloc-ratio (everything dies young).
// Configurations, interleaved run by run so drift hits all alike: plain; clrscope --alloc on with
// the live heap off (CLRSCOPE_LIVE_HEAP=0); clrscope --alloc on with it on (the default with
// allocations). Each run is timed by the program itself (the scenario's elapsedMs); the live-heap
// runs also give the profiler's own count of handles made and the time its sweeps took inside the
// GC pauses (CLRSCOPE_LOG). Medians and ratios, all from this one invocation, of the elapsed time
// and of the process's CPU time (all its threads, the profiler's included: RESULT processCpuMs),
// which a machine shared with other work disturbs far less than the elapsed time.
//
//   node scripts/bench/live-heap-overhead.mjs [--runs 5] [--allocate-mb 300] [--target dotnet|net8.0|net9.0]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, 'allocate-mb': { type: 'string', default: '300' }, target: { type: 'string', default: 'dotnet' } } });
const dll = join(root, 'test/targets/Scenarios/bin/out/Scenarios.dll');
const program = values.target === 'dotnet' ? ['dotnet', dll] : [join(root, 'test/targets/Scenarios/bin', values.target, 'Scenarios')];
if (!existsSync(program.at(-1))) {
  console.error(`live-heap-overhead: ${program.at(-1)} is not built; run bash scripts/setup.sh`);
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-live-heap-bench-'));
const cli = join(root, 'electron/cli/clrscope.js');
let serial = 0;
const record = (name, env) => ({ name, env, cmd: process.execPath, pre: () => [cli, 'record', '--alloc', 'on', '-o', join(scratch, `run-${serial++}.pb.gz`), '--'] });
const configs = [
  { name: 'plain', env: {}, cmd: program[0], pre: () => [] },
  record('clrscope --alloc on, live heap off', { CLRSCOPE_LIVE_HEAP: '0' }),
  record('clrscope --alloc on, live heap on', {}),
];
const workloads = [
  { name: 'growing heap (live-heap)', args: ['live-heap', '--allocate-mb', values['allocate-mb']], scenario: 'live-heap' },
  { name: 'all die young (alloc-ratio)', args: ['alloc-ratio', '--allocate-mb', values['allocate-mb']], scenario: 'alloc-ratio' },
];

const sweepLine = /live heap: (\d+) handles made, .*?; (\d+) sweeps took ([\d.]+) us each \(([\d.]+) ms in all, the longest ([\d.]+) us\)/;
const sweeps = workloads.map(() => []);

function once(config, workload, wi) {
  const pre = config.pre();
  const target = pre.length === 0 ? program.slice(1) : program;
  const log = join(scratch, `log-${serial++}.txt`);
  const env = { ...process.env, ...config.env, ...(pre.length === 0 ? {} : { CLRSCOPE_LOG: log }) };
  const r = spawnSync(config.cmd, [...pre, ...target, ...workload.args], { encoding: 'utf8', env, maxBuffer: 64 << 20 });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || line === undefined) throw new Error(`${config.name} ${workload.name} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  if (existsSync(log)) {
    const m = sweepLine.exec(readFileSync(log, 'utf8'));
    if (m !== null) sweeps[wi].push({ handles: Number(m[1]), sweeps: Number(m[2]), eachUs: Number(m[3]), longestUs: Number(m[5]) });
  }
  const result = JSON.parse(line.slice(7));
  return { elapsed: result.scenarios[workload.scenario].elapsedMs, cpu: result.processCpuMs };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const runs = Number(values.runs);
const times = workloads.map(() => configs.map(() => []));
for (let run = 0; run < runs; run++) {
  workloads.forEach((w, wi) => configs.forEach((c, ci) => times[wi][ci].push(once(c, w, wi))));
  process.stderr.write(`live-heap-overhead: run ${run + 1}/${runs} done\n`);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`Runs: ${runs}, interleaved; ${values.target === 'dotnet' ? '.NET 10 (shared runtime)' : values.target}; --allocate-mb ${values['allocate-mb']}; ${new Date().toISOString().slice(0, 10)}\n`);
workloads.forEach((w, wi) => {
  const med = times[wi].map((xs) => median(xs.map((x) => x.elapsed)));
  const cpu = times[wi].map((xs) => median(xs.map((x) => x.cpu)));
  console.log(`### ${w.name}\n\n| config | elapsed (median) | ratio to plain | ratio to live heap off | process CPU (median) | ratio to plain | ratio to live heap off |\n|---|---|---|---|---|---|---|`);
  configs.forEach((c, ci) => console.log(`| ${c.name} | ${med[ci].toFixed(1)} ms | ${(med[ci] / med[0]).toFixed(3)} | ${ci === 0 ? '–' : (med[ci] / med[1]).toFixed(3)} | ${cpu[ci].toFixed(1)} ms | ${(cpu[ci] / cpu[0]).toFixed(3)} | ${ci === 0 ? '–' : (cpu[ci] / cpu[1]).toFixed(3)} |`));
  const s = sweeps[wi];
  if (s.length > 0) {
    console.log(`\nLive heap on (medians of ${s.length} runs): ${median(s.map((x) => x.handles))} handles made, ${median(s.map((x) => x.sweeps))} sweeps (GCs), ` +
      `${median(s.map((x) => x.eachUs)).toFixed(1)} us per sweep, the longest ${median(s.map((x) => x.longestUs)).toFixed(1)} us.`);
  }
  console.log('');
});
