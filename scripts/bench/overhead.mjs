// Profiler overhead on a CPU-bound workload: test/targets/CpuBench (several threads, fixed
// work, the program times the work itself) run plain, under clrscope at 10 ms and 1 ms, and
// under dotnet-trace's default sampling when it can be installed from the NuGet source here.
// Two measures per run: the fastest of R rounds of the same work after a JIT warm-up, timed by
// the program (interference from the rest of a shared machine only ever adds time; a
// profiler's cost is in every round), and the CPU time of everything the run started (the
// program, and for clrscope the collector too), from the shell's `times`. Runs are interleaved
// so drift hits every config alike; the report gives medians over runs and ratios to the plain
// runs, all measured in this one invocation. On a shared virtual machine both vary from run to
// run by more than a 1% effect, so for clrscope the report also counts the profiler's own cost
// directly: the time its signal handler ran and its sampler thread's CPU (from the profiler's
// log), against the program's CPU, and the collector's CPU (the run's total less the program's).
//
//   node scripts/bench/overhead.mjs [--runs 7] [--threads 2] [--work 40000] [--rounds 7] [--baseline-lib PATH]
// --baseline-lib adds "clrscope 10ms baseline": the same run with another build of the profiler
// library (e.g. the one before a change, built from an older commit), so its own CPU cost and
// this build's come from one invocation.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dotnetTraceTool } from './dotnet-trace-tool.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, rounds: { type: 'string', default: '7' }, threads: { type: 'string', default: '2' }, work: { type: 'string', default: '40000' }, 'no-dotnet-trace': { type: 'boolean' }, 'baseline-lib': { type: 'string' } } });
const rounds = Number(values.runs);
const bench = join(root, 'test/targets/CpuBench/bin/out/CpuBench.dll');
if (!existsSync(bench)) {
  console.error('overhead: CpuBench is not built; run bash scripts/setup.sh');
  process.exit(2);
}
const benchArgs = [bench, '--threads', values.threads, '--work', values.work, '--warmup', '5000', '--rounds', values.rounds];
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-bench-'));

const dotnetTrace = () => dotnetTraceTool(root, values['no-dotnet-trace']);

const trace = await dotnetTrace();
const configs = [
  { name: 'plain', cmd: 'dotnet', args: benchArgs },
  { name: 'clrscope 10ms', cmd: process.execPath, args: [join(root, 'electron/cli/clrscope.js'), 'record', '--interval', '10', '-o', join(scratch, 'c10.pb.gz'), '--', 'dotnet', ...benchArgs] },
  { name: 'clrscope 1ms', cmd: process.execPath, args: [join(root, 'electron/cli/clrscope.js'), 'record', '--interval', '1', '-o', join(scratch, 'c1.pb.gz'), '--', 'dotnet', ...benchArgs] },
];
if (values['baseline-lib'] !== undefined) {
  const lib = resolve(values['baseline-lib']);
  if (!existsSync(lib)) {
    console.error(`overhead: no profiler library at ${lib}`);
    process.exit(2);
  }
  configs.push({ name: 'clrscope 10ms baseline', cmd: process.execPath, args: [join(root, 'electron/cli/clrscope.js'), 'record', '--interval', '10', '-o', join(scratch, 'b10.pb.gz'), '--', 'dotnet', ...benchArgs], env: { CLRSCOPE_PROFILER_PATH: lib } });
}
if (trace.path !== undefined) {
  configs.push({ name: 'dotnet-trace default', cmd: trace.path, args: ['collect', '--show-child-io', '-o', join(scratch, 't.nettrace'), '--', 'dotnet', ...benchArgs] });
}

function seconds(text) {
  const m = /^(\d+)m([\d.]+)s$/.exec(text);
  return m === null ? Number.NaN : Number(m[1]) * 60 + Number(m[2]);
}

function once(config, log) {
  // bash's `times` prints the CPU of the shell's finished children: the whole process tree.
  // (In a command substitution it would report the subshell, which has no children.)
  const r = spawnSync('bash', ['-c', '"$@"; status=$?; echo CHILDCPU; times; exit $status', '_', config.cmd, ...config.args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...config.env, CLRSCOPE_LOG: log } });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  // `times` prints the shell's own line, then its children's.
  const cpu = /CHILDCPU\n\S+ \S+\n(\S+) (\S+)/.exec(r.stdout);
  if (r.status !== 0 || line === undefined || cpu === null) throw new Error(`${config.name} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const result = { ...JSON.parse(line.slice(7)), cpuMs: (seconds(cpu[1]) + seconds(cpu[2])) * 1000 };
  if (existsSync(log)) {
    const m = /\(([\d.]+) ms in all\); the sampler thread used ([\d.]+) ms of CPU/.exec(readFileSync(log, 'utf8'));
    if (m !== null) result.profilerMs = Number(m[1]) + Number(m[2]);
  }
  return result;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const times = new Map(configs.map((c) => [c.name, []]));
const cpus = new Map(configs.map((c) => [c.name, []]));
const programCpus = new Map(configs.map((c) => [c.name, []]));
const profilerMs = new Map(configs.map((c) => [c.name, []]));
let checksum;
for (let round = 0; round < rounds; round++) {
  // Rotate the order each round so no config always runs first (cold caches) or last.
  for (let k = 0; k < configs.length; k++) {
    const c = configs[(round + k) % configs.length];
    const res = once(c, join(scratch, `log-${round}-${k}.txt`));
    if (checksum === undefined) checksum = res.checksum;
    if (res.checksum !== checksum) throw new Error(`${c.name} computed a different checksum: the profiler changed the program's result`);
    times.get(c.name).push(res.minRoundMs);
    cpus.get(c.name).push(res.cpuMs);
    programCpus.get(c.name).push(res.processCpuMs);
    if (res.profilerMs !== undefined) profilerMs.get(c.name).push(res.profilerMs);
  }
  process.stderr.write(`run ${round + 1}/${rounds} done\n`);
}
rmSync(scratch, { recursive: true, force: true });

const base = median(times.get('plain'));
const baseCpu = median(cpus.get('plain'));
const report = configs.map((c) => {
  const t = times.get(c.name);
  const cpu = cpus.get(c.name);
  // Paired ratio per run as well: robust against slow drift of the machine over the run.
  const paired = median(t.map((v, i) => v / times.get('plain')[i]));
  return {
    config: c.name,
    medianMs: Number(median(t).toFixed(1)),
    ratio: Number((median(t) / base).toFixed(4)),
    pairedRatio: Number(paired.toFixed(4)),
    cpuMs: Number(median(cpu).toFixed(0)),
    cpuRatio: Number((median(cpu) / baseCpu).toFixed(4)),
    // The profiler's own CPU (handler + sampler thread) against the plain program's CPU.
    profilerCpuPct: profilerMs.get(c.name).length ? Number(((100 * median(profilerMs.get(c.name))) / median(programCpus.get('plain'))).toFixed(2)) : null,
    // What the rest of the run cost beside the program: the collector (node), or dotnet-trace.
    outsideCpuMs: Number(median(cpu.map((v, i) => v - programCpus.get(c.name)[i])).toFixed(0)),
    runsMs: t.map((v) => Number(v.toFixed(1))),
    runsCpuMs: cpu.map((v) => Number(v.toFixed(0))),
  };
});
console.log(`CpuBench --threads ${values.threads} --work ${values.work} --rounds ${values.rounds}, fastest round per run, ${rounds} interleaved runs, ${new Date().toISOString()}`);
console.log('config                 fastest round ms   ratio   paired ratio   CPU ms (all processes)   CPU ratio   profiler CPU % of program   CPU ms outside the program');
for (const r of report) console.log(`${r.config.padEnd(22)} ${String(r.medianMs).padStart(16)} ${r.ratio.toFixed(3).padStart(7)} ${r.pairedRatio.toFixed(3).padStart(14)} ${String(r.cpuMs).padStart(24)} ${r.cpuRatio.toFixed(3).padStart(11)} ${String(r.profilerCpuPct ?? '-').padStart(27)} ${String(r.outsideCpuMs).padStart(28)}`);
if (trace.path === undefined) console.log(`dotnet-trace: not measured: ${trace.why}`);
const own = (name) => report.find((r) => r.config === name)?.profilerCpuPct;
if (own('clrscope 10ms baseline') !== undefined) {
  console.log(`profiler's own CPU at 10 ms, this build / baseline: ${(own('clrscope 10ms') / own('clrscope 10ms baseline')).toFixed(3)}`);
}
console.log(JSON.stringify({ bench: 'overhead', threads: Number(values.threads), work: Number(values.work), rounds: Number(values.rounds), runs: rounds, goal10ms: 1.01, report, dotnetTrace: trace.path === undefined ? trace.why : 'measured' }));
