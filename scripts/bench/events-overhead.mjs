// What recording exceptions, lock waits and allocations costs the program (issue 12), on an
// allocation-heavy and a lock-heavy workload: Scenarios' alloc-ratio (one thread allocating
// --allocate-mb MB in byte[]s of 500-1500 bytes and small objects) and lock-churn (4 threads contending for one
// monitor). Each run is timed by the program itself (the scenario's elapsedMs). Configurations,
// interleaved run by run so drift hits all alike: plain; clrscope with no event samples
// (--exceptions/--locks/--alloc off: the CPU/wall sampler alone); clrscope asking the runtime for
// allocation events but dropping each as it arrives (CLRSCOPE_ALLOC_CAPTURE=0: the runtime's own
// share); clrscope with allocations only;
// with locks only; at the defaults (exceptions and locks); with everything on. Ratios are medians of each against plain and
// against "clrscope, events off", all from this one invocation. The peer: dotnet-trace collecting
// the runtime's own events for the same three things, with their stacks (GC keyword at verbose
// for AllocationTick, Contention, Exception, and the Stack keyword), alone and with its sampler
// (Microsoft-DotNETCore-SampleProfiler), as clrscope's "all on" also samples CPU and wall time.
//
//
// --mode exceptions measures instead what reading exceptions' messages costs, on an exception-heavy
// workload: Scenarios' throw-mix (--throws rounds of six exceptions, thrown and caught on one
// thread). Configurations: plain; clrscope with no event samples; exceptions with stacks but no
// messages (CLRSCOPE_EXCEPTION_MESSAGES=0); exceptions with stacks and messages (the default). Both
// exception configurations lift the stack budget (CLRSCOPE_EXCEPTION_STACKS=1000000) so every
// exception takes the path that reads its message; the ratio of the last two is the read's cost.
//
//   node scripts/bench/events-overhead.mjs [--runs 7] [--allocate-mb 600] [--churn 300] [--target dotnet|net8.0|net9.0] [--no-dotnet-trace]
//   node scripts/bench/events-overhead.mjs --mode exceptions [--runs 7] [--throws 20000] [--target ...]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dotnetTraceTool } from './dotnet-trace-tool.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' }, 'allocate-mb': { type: 'string', default: '600' }, churn: { type: 'string', default: '300' }, target: { type: 'string', default: 'dotnet' },
    'no-dotnet-trace': { type: 'boolean' }, mode: { type: 'string', default: 'events' }, throws: { type: 'string', default: '20000' },
  },
});
const exceptionsMode = values.mode === 'exceptions';
const dll = join(root, 'test/targets/Scenarios/bin/out/Scenarios.dll');
const program = values.target === 'dotnet' ? ['dotnet', dll] : [join(root, 'test/targets/Scenarios/bin', values.target, 'Scenarios')];
if (!existsSync(program.at(-1))) {
  console.error(`events-overhead: ${program.at(-1)} is not built; run bash scripts/setup.sh`);
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-events-bench-'));
const cli = join(root, 'electron/cli/clrscope.js');
const record = (name, switches, env = {}) => ({ name, cmd: process.execPath, pre: [cli, 'record', ...switches, '-o', join(scratch, `${name.replace(/\W+/g, '-')}.pb.gz`), '--'], env });
const everyStack = { CLRSCOPE_EXCEPTION_STACKS: '1000000' };
const configs = exceptionsMode ? [
  { name: 'plain', cmd: program[0], pre: [] },
  record('clrscope, events off', ['--exceptions', 'off', '--locks', 'off', '--alloc', 'off']),
  record('clrscope, exceptions without messages', ['--locks', 'off', '--alloc', 'off'], { ...everyStack, CLRSCOPE_EXCEPTION_MESSAGES: '0' }),
  record('clrscope, exceptions with messages', ['--locks', 'off', '--alloc', 'off'], everyStack),
] : [
  { name: 'plain', cmd: program[0], pre: [] },
  record('clrscope, events off', ['--exceptions', 'off', '--locks', 'off', '--alloc', 'off']),
  // The runtime raises its allocation events and clrscope drops each as it arrives: the
  // runtime's own share of "alloc only".
  record('clrscope, alloc events raised, not recorded', ['--exceptions', 'off', '--locks', 'off', '--alloc', 'on'], { CLRSCOPE_ALLOC_CAPTURE: '0' }),
  record('clrscope, alloc only', ['--exceptions', 'off', '--locks', 'off', '--alloc', 'on']),
  record('clrscope, locks only', ['--exceptions', 'off', '--alloc', 'off']),
  record('clrscope, defaults (exceptions, locks)', []),
  record('clrscope, all on', ['--alloc', 'on']),
];
// GC (0x1) | Contention (0x4000) | Exception (0x8000) | Stack (0x40000000), level 5 (AllocationTick is verbose).
const RUNTIME_EVENTS = 'Microsoft-Windows-DotNETRuntime:0x4000C001:5';
const trace = await dotnetTraceTool(root, values['no-dotnet-trace'] || exceptionsMode);
if (trace.path !== undefined) {
  const peer = (name, providers) => ({ name, cmd: trace.path, pre: ['collect', '--show-child-io', '--providers', providers, '-o', join(scratch, `${name.replace(/\W+/g, '-')}.nettrace`), '--'] });
  configs.push(peer('dotnet-trace, the same events with stacks', RUNTIME_EVENTS));
  configs.push(peer('dotnet-trace, the same events and its sampler', `${RUNTIME_EVENTS},Microsoft-DotNETCore-SampleProfiler`));
}
const workloads = exceptionsMode ? [
  { name: `exception-heavy (throw-mix, ${(6 * Number(values.throws)).toLocaleString('en')} exceptions)`, args: ['throw-mix', '--exceptions', values.throws], scenario: 'throw-mix', thread: 'throw-mix' },
] : [
  { name: 'allocation-heavy (alloc-ratio)', args: ['alloc-ratio', '--allocate-mb', values['allocate-mb']], scenario: 'alloc-ratio' },
  { name: 'lock-heavy (lock-churn)', args: ['lock-churn', '--exceptions', values.churn], scenario: 'lock-churn' },
];

function once(config, workload) {
  const target = config.pre.length === 0 ? program.slice(1) : program;
  const r = spawnSync(config.cmd, [...config.pre, ...target, ...workload.args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...config.env } });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || line === undefined) throw new Error(`${config.name} ${workload.name} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const result = JSON.parse(line.slice(7));
  // The throwing thread's own CPU time: where the message is read, and less shaken than the
  // elapsed time by whatever else the machine runs.
  if (workload.thread !== undefined) threadCpu.get(workload)?.get(config)?.push(result.threads[workload.thread].cpuMs);
  return result.scenarios[workload.scenario].elapsedMs;
}
const threadCpu = new Map();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (const w of workloads) if (w.thread !== undefined) threadCpu.set(w, new Map(configs.map((c) => [c, []])));
const runs = Number(values.runs);
const times = workloads.map(() => configs.map(() => []));
for (let run = 0; run < runs; run++) {
  workloads.forEach((w, wi) => configs.forEach((c, ci) => times[wi][ci].push(once(c, w))));
  process.stderr.write(`events-overhead: run ${run + 1}/${runs} done\n`);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`Runs: ${runs}, interleaved; ${values.target === 'dotnet' ? '.NET 10 (shared runtime)' : values.target}; ${new Date().toISOString().slice(0, 10)}; dotnet-trace: ${trace.path === undefined ? trace.why : 'measured'}\n`);
workloads.forEach((w, wi) => {
  const med = times[wi].map(median);
  console.log(`### ${w.name}\n\n| config | elapsed (median) | ratio to plain | ratio to clrscope, events off |\n|---|---|---|---|`);
  configs.forEach((c, ci) => console.log(`| ${c.name} | ${med[ci].toFixed(1)} ms | ${(med[ci] / med[0]).toFixed(3)} | ${ci === 0 ? '–' : (med[ci] / med[1]).toFixed(3)} |`));
  if (exceptionsMode) console.log(`\nReading the messages: ${(med[3] / med[2]).toFixed(3)} × the run that records the same exceptions without them (medians; per-run ratios ${times[wi][3].map((t, i) => (t / times[wi][2][i]).toFixed(3)).join(', ')}).`);
  const cpu = threadCpu.get(w);
  if (cpu !== undefined) {
    const cmed = configs.map((c) => median(cpu.get(c)));
    console.log(`\nCPU time of the thread "${w.thread}" (median):\n\n| config | CPU | ratio to plain |\n|---|---|---|`);
    configs.forEach((c, ci) => console.log(`| ${c.name} | ${cmed[ci].toFixed(1)} ms | ${(cmed[ci] / cmed[0]).toFixed(3)} |`));
    if (exceptionsMode) console.log(`\nReading the messages, by that thread's CPU: ${(cmed[3] / cmed[2]).toFixed(3)} × without them.`);
  }
  console.log('');
});
