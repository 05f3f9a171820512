// Reading the counters: the time to take one consistent snapshot of a live process's counters
// block (copy under the sequence lock), and to decode it into named counters, median over many
// reads, against the refresh EventCounters/dotnet-counters offer (1 s default, 0.1 s minimum).
//
//   npm run build && node scripts/bench/counters-read.mjs [--reads 200000]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { values } = parseArgs({ options: { reads: { type: 'string', default: '200000' } } });
const reads = Number(values.reads);
const { CountersSource } = await import(join(root, 'dist/electron/services/counters/counters-source.js'));
const { launchProfiled } = await import(join(root, 'dist/electron/services/session/profiled-launch.js'));
const program = join(root, 'test/targets/GcLoad/bin/out/GcLoad.dll');
if (!existsSync(program)) {
  console.error('counters-read: GcLoad is not built; run bash scripts/setup.sh');
  process.exit(2);
}

// A live writer: GcLoad collecting in a loop while the profiler publishes every millisecond.
const launch = await launchProfiled({
  command: 'dotnet', args: [program, '--gen0', '50', '--duration', '30', '--repeat-every', '0'],
  intervalMs: 1, wall: false, cpu: false, libraryPath: join(root, 'native-profiler/build/libclrscope.so'), output: () => undefined,
});
let source;
for (let i = 0; i < 1000 && source === undefined; i++) {
  try {
    const s = CountersSource.forPid(launch.pid);
    if (s.written()) source = s; else s.close();
  } catch { /* not yet */ }
  if (source === undefined) await new Promise((r) => setTimeout(r, 10));
}
if (source === undefined) throw new Error('the counters block never appeared');

function measure(fn) {
  const times = new Float64Array(reads);
  for (let i = 0; i < 20000; i++) fn(); // warm-up: let the JIT settle
  for (let i = 0; i < reads; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times[i] = Number(process.hrtime.bigint() - t0);
  }
  times.sort();
  return { medianNs: times[Math.floor(reads / 2)], p99Ns: times[Math.floor(reads * 0.99)] };
}

const raw = measure(() => source.readRaw());
const decoded = measure(() => source.read());
const last = source.read();
source.close();
await launch.stopProgram();
await launch.exited;
await launch.finish();

const report = {
  bench: 'counters-read', reads,
  consistentCopy: raw, copyAndDecode: decoded,
  goalNs: 2000,
  ratioToGoal: Number((decoded.medianNs / 2000).toFixed(3)),
  versusEventCountersMinimumRefresh: Math.round(100e6 / decoded.medianNs),
  gcCollectionsSeen: last.gc.genCollections0,
};
console.log(`consistent snapshot (copy under the sequence lock): median ${raw.medianNs} ns, p99 ${raw.p99Ns} ns`);
console.log(`snapshot + decode into named counters: median ${decoded.medianNs} ns, p99 ${decoded.p99Ns} ns (goal: under 2,000 ns)`);
console.log(`EventCounters refresh at its 0.1 s minimum = ${report.versusEventCountersMinimumRefresh.toLocaleString('en-US')} such reads; dotnet-counters' default is 1 s`);
console.log(JSON.stringify(report));
