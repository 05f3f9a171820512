// What wall-time sampling costs a process whose threads mostly wait: Scenarios `sleep lock`
// (a sleeping thread, a lock holder and three blocked waiters, plus the runtime's own idle
// threads) run plain and under clrscope at 10 ms and 1 ms, interleaved. The program reports its
// own process CPU time (every thread, the profiler's included); the difference to the plain
// run, per second of run time, is the cost in % of one core. The profiler's log says how many
// wall samples it answered from an idle thread's previous stack instead of signalling it.
//
//   node scripts/bench/wall-cost.mjs [--rounds 5] [--seconds 5]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' } } });
const dll = join(root, 'test/targets/Scenarios/bin/out/Scenarios.dll');
if (!existsSync(dll)) {
  console.error('wall-cost: Scenarios is not built; run bash scripts/setup.sh');
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-bench-'));
const target = [dll, 'sleep', 'lock', '--seconds', values.seconds];
const cli = join(root, 'electron/cli/clrscope.js');
const configs = [
  { name: 'plain', cmd: 'dotnet', args: target },
  { name: 'clrscope 10ms', interval: 10 },
  { name: 'clrscope 1ms', interval: 1 },
].map((c) => c.cmd ? c : { ...c, cmd: process.execPath, args: [cli, 'record', '--interval', String(c.interval), '-o', join(scratch, `w${c.interval}.pb.gz`), '--', 'dotnet', ...target] });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const runs = new Map(configs.map((c) => [c.name, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  for (let k = 0; k < configs.length; k++) {
    const c = configs[(round + k) % configs.length];
    const log = join(scratch, `log-${round}-${k}.txt`);
    const r = spawnSync(c.cmd, c.args, { encoding: 'utf8', env: { ...process.env, CLRSCOPE_LOG: log } });
    const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) throw new Error(`${c.name} failed: ${r.stderr.slice(-2000)}`);
    const res = JSON.parse(line.slice(7));
    let samples = 0;
    let reused = 0;
    if (existsSync(log)) {
      const m = /stream ended: (\d+) samples, (\d+) wall samples answered/.exec(readFileSync(log, 'utf8'));
      if (m) { samples = Number(m[1]); reused = Number(m[2]); }
    }
    runs.get(c.name).push({ cpuMs: res.processCpuMs, elapsedMs: res.elapsedMs, samples, reused });
  }
  process.stderr.write(`round ${round + 1}/${values.rounds} done\n`);
}
rmSync(scratch, { recursive: true, force: true });

const base = median(runs.get('plain').map((r) => r.cpuMs));
const report = configs.map((c) => {
  const rs = runs.get(c.name);
  const cpu = median(rs.map((r) => r.cpuMs));
  const seconds = median(rs.map((r) => r.elapsedMs)) / 1000;
  const samples = median(rs.map((r) => r.samples));
  const reused = median(rs.map((r) => r.reused));
  return {
    config: c.name,
    processCpuMs: cpu,
    extraCpuPctOfCore: Number((((cpu - base) / 1000 / seconds) * 100).toFixed(2)),
    samples,
    reusedPct: samples > 0 ? Number(((100 * reused) / samples).toFixed(1)) : null,
    extraCpuUsPerSample: samples > 0 ? Number((((cpu - base) * 1000) / samples).toFixed(1)) : null,
  };
});
console.log(`Scenarios sleep lock --seconds ${values.seconds}, ${values.rounds} interleaved rounds, ${new Date().toISOString()}`);
console.log('config           process CPU ms   extra % of a core   samples   answered idle   µs per sample');
for (const r of report) {
  console.log(`${r.config.padEnd(16)} ${String(r.processCpuMs).padStart(14)} ${String(r.extraCpuPctOfCore).padStart(19)} ${String(r.samples).padStart(9)} ${String(r.reusedPct ?? '-').padStart(14)}% ${String(r.extraCpuUsPerSample ?? '-').padStart(14)}`);
}
console.log(JSON.stringify({ bench: 'wall-cost', seconds: Number(values.seconds), rounds: Number(values.rounds), report }));
