// Profiler overhead on a CPU-bound workload: test/targets/CpuBench (several threads, fixed
// work, the program times the work itself) run plain, under clrscope at 10 ms and 1 ms, and
// under dotnet-trace's default sampling when it can be installed from the NuGet source here.
// Runs are interleaved round by round so drift on a shared machine hits every config alike;
// the report gives medians and ratios to the plain run, all measured in this one invocation.
//
//   node scripts/bench/overhead.mjs [--rounds 7] [--threads 2] [--work 40000]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, threads: { type: 'string', default: '2' }, work: { type: 'string', default: '40000' }, 'no-dotnet-trace': { type: 'boolean' } } });
const rounds = Number(values.rounds);
const bench = join(root, 'test/targets/CpuBench/bin/out/CpuBench.dll');
if (!existsSync(bench)) {
  console.error('overhead: CpuBench is not built; run bash scripts/setup.sh');
  process.exit(2);
}
const benchArgs = [bench, '--threads', values.threads, '--work', values.work, '--warmup', '3000'];
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-bench-'));

function dotnetTrace() {
  if (values['no-dotnet-trace']) return { path: undefined, why: 'skipped (--no-dotnet-trace)' };
  const dir = join(root, 'scripts/bench/.tools');
  const exe = join(dir, 'dotnet-trace');
  if (existsSync(exe)) return { path: exe };
  const r = spawnSync('dotnet', ['tool', 'install', 'dotnet-trace', '--tool-path', dir], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(exe)) return { path: exe };
  return { path: undefined, why: `dotnet tool install dotnet-trace failed: ${(r.stdout + r.stderr).trim().split('\n').pop()}` };
}

const trace = dotnetTrace();
const configs = [
  { name: 'plain', cmd: 'dotnet', args: benchArgs },
  { name: 'clrscope 10ms', cmd: process.execPath, args: [join(root, 'electron/cli/clrscope.js'), 'record', '--interval', '10', '-o', join(scratch, 'c10.pb.gz'), '--', 'dotnet', ...benchArgs] },
  { name: 'clrscope 1ms', cmd: process.execPath, args: [join(root, 'electron/cli/clrscope.js'), 'record', '--interval', '1', '-o', join(scratch, 'c1.pb.gz'), '--', 'dotnet', ...benchArgs] },
];
if (trace.path !== undefined) {
  configs.push({ name: 'dotnet-trace default', cmd: trace.path, args: ['collect', '--show-child-io', '-o', join(scratch, 't.nettrace'), '--', 'dotnet', ...benchArgs] });
}

function once(config) {
  const r = spawnSync(config.cmd, config.args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || line === undefined) throw new Error(`${config.name} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(line.slice(7));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const times = new Map(configs.map((c) => [c.name, []]));
let checksum;
for (let round = 0; round < rounds; round++) {
  // Rotate the order each round so no config always runs first (cold caches) or last.
  for (let k = 0; k < configs.length; k++) {
    const c = configs[(round + k) % configs.length];
    const res = once(c);
    if (checksum === undefined) checksum = res.checksum;
    if (res.checksum !== checksum) throw new Error(`${c.name} computed a different checksum: the profiler changed the program's result`);
    times.get(c.name).push(res.elapsedMs);
  }
  process.stderr.write(`round ${round + 1}/${rounds} done\n`);
}
rmSync(scratch, { recursive: true, force: true });

const base = median(times.get('plain'));
const report = configs.map((c) => {
  const t = times.get(c.name);
  // Paired ratio per round as well: robust against slow drift of the machine over the run.
  const paired = median(t.map((v, i) => v / times.get('plain')[i]));
  return { config: c.name, medianMs: Number(median(t).toFixed(1)), ratio: Number((median(t) / base).toFixed(4)), pairedRatio: Number(paired.toFixed(4)), runsMs: t.map((v) => Number(v.toFixed(1))) };
});
console.log(`CpuBench --threads ${values.threads} --work ${values.work}, ${rounds} interleaved rounds, ${new Date().toISOString()}`);
console.log('config                  median ms    ratio  paired ratio');
for (const r of report) console.log(`${r.config.padEnd(22)} ${String(r.medianMs).padStart(10)} ${r.ratio.toFixed(3).padStart(8)} ${r.pairedRatio.toFixed(3).padStart(13)}`);
if (trace.path === undefined) console.log(`dotnet-trace: not measured: ${trace.why}`);
console.log(JSON.stringify({ bench: 'overhead', threads: Number(values.threads), work: Number(values.work), rounds, goal10ms: 1.01, report, dotnetTrace: trace.path === undefined ? trace.why : 'measured' }));
