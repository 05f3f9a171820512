// What clrscope costs real programs nobody here wrote (issue 25): the soak's programs
// (test/soak/soak-programs.ts: PowerShell, ilspycmd, csharpier, the ASP.NET Core service under a
// load generator, the EF Core + SQLite program), each run bare, under `clrscope record` at the
// defaults, under `clrscope record` with every event type on, and under `dotnet-trace collect -p`
// (its default providers, the peer; always attached once the program's diagnostics socket is up,
// since its launch cannot start a program under GNU time), interleaved: every round runs every configuration of a
// program in a rotated order, so drift of the machine hits all alike.
//
//   node scripts/bench/real-programs-cost.mjs [--rounds 5] [--programs pwsh,ilspycmd,csharpier,aspnet,efcore]
//       [--configs bare,defaults,all,async-events,async-heap,dotnet-trace,requests,requests-all,loaded,no-events,no-perf-map,no-wall,sparse,eventpipe]
//       [--attach] [--json FILE]
//
// --attach records with `record --pid` after the program started instead of launching it under
// record, as dotnet-trace is.
// Reported per program and configuration: the median of the program's CPU (its process tree, from
// GNU time) and of its wall time, each as a ratio to bare, with the spread (lowest and highest
// paired ratio: run i against the bare run of round i); the service's throughput (its fixed
// request list over the time the load took) the same way; and the collector's own CPU outside the
// program (clrscope's CLI, or dotnet-trace). Ratios are cost: > 1 is slower.
//
// Needs `npm run build`, the profiler and the soak's installs (scripts/setup.sh). Measure on a quiet
// machine: the load average is printed at the start and the end.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { dotnetTraceTool } from './dotnet-trace-tool.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
if (!existsSync(join(root, 'dist', 'test', 'soak', 'soak-run.js'))) {
  console.error('real-programs-cost: dist/ is missing the soak; run npm run build first.');
  process.exit(2);
}
const { programByName } = await import(dist('test/soak/soak-programs.js'));
const { runOnce, failureOf } = await import(dist('test/soak/soak-run.js'));
const { ensureCsharpierInput } = await import(dist('test/soak/soak-prepare.js'));
const { LOAD_REQUESTS } = await import(dist('test/soak/soak-load.js'));

const CONFIGS = {
  bare: { mode: 'bare' },
  defaults: { mode: 'launch', recordOptions: [] },
  all: { mode: 'launch', recordOptions: ['--alloc', 'on', '--locks', 'on', '--exceptions', 'on', '--async'] },
  // Async call stacks alone, from each source (native-profiler/ASYNC-STACKS-STUDY.md): the TPL
  // events of every await, or the chain read from the heap at each sample.
  'async-events': { mode: 'launch', recordOptions: ['--async', '--async-source', 'events'] },
  'async-heap': { mode: 'launch', recordOptions: ['--async', '--async-source', 'heap'] },
  'dotnet-trace': { mode: 'trace' },
  // HTTP requests (issue 27) on the ASP.NET Core service: at the default budget, where the bridge
  // listens part of the time past it, and every request (--requests-rate all).
  requests: { mode: 'launch', recordOptions: ['--requests'] },
  'requests-all': { mode: 'launch', recordOptions: ['--requests', '--requests-rate', 'all'] },
  // Where the cost at the defaults goes: the same recording with one part left out each, and the
  // profiler loaded with nothing to do (no socket: it stays inactive, but the runtime keeps it).
  loaded: { mode: 'bare', env: 'loaded' },
  'no-events': { mode: 'launch', recordOptions: [], env: { CLRSCOPE_RUNTIME_EVENTS: '0' } },
  'no-perf-map': { mode: 'launch', recordOptions: [], env: { CLRSCOPE_PERF_MAP: '0' } },
  'no-wall': { mode: 'launch', recordOptions: ['--no-wall'] },
  'sparse': { mode: 'launch', recordOptions: ['--interval', '1000'] },
  // What any EventPipe tool's session of the runtime's provider costs the program by itself (the
  // GC keyword alone, from the runtime's own environment switch, no profiler): .NET's managed
  // NativeRuntimeEventSource shares the provider's name, and its enabling builds every event's
  // descriptor by reflection before Main (dotnet/runtime issue 90405).
  eventpipe: { mode: 'bare', env: 'eventpipe' },
};
const { PROFILER_CLSID, profilerLibraryPath } = await import(dist('electron/services/profiler/profiler-env.js'));
/** A session the runtime opens itself at startup, written to a file in a folder of this run's. */
let eventPipeDir;
function eventPipeEnv() {
  eventPipeDir ??= mkdtempSync(join(tmpdir(), 'clrscope-cost-eventpipe-'));
  return { DOTNET_EnableEventPipe: '1', DOTNET_EventPipeConfig: 'Microsoft-Windows-DotNETRuntime:0x1:4', DOTNET_EventPipeRundown: '0', DOTNET_EventPipeOutputPath: join(eventPipeDir, 'trace-{pid}.nettrace') };
}
const loadedEnv = { CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: PROFILER_CLSID, CORECLR_PROFILER_PATH: profilerLibraryPath() };

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    programs: { type: 'string', default: 'pwsh,ilspycmd,csharpier,aspnet,efcore' },
    configs: { type: 'string', default: 'bare,defaults,all,dotnet-trace' },
    attach: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
let configs = values.configs.split(',').filter(Boolean);
if (!(rounds >= 1 && rounds <= 50) || configs[0] !== 'bare' || configs.some((c) => CONFIGS[c] === undefined)) {
  console.error(`real-programs-cost: --rounds takes 1..50 and --configs a list of ${Object.keys(CONFIGS).join(', ')} starting with bare.`);
  process.exit(2);
}
let programs;
try {
  programs = values.programs.split(',').filter(Boolean).map(programByName);
} catch (e) {
  console.error(`real-programs-cost: ${e.message}`);
  process.exit(2);
}
const trace = configs.includes('dotnet-trace') ? await dotnetTraceTool(root, false) : { path: undefined };
if (configs.includes('dotnet-trace') && trace.path === undefined) {
  console.log(`dotnet-trace: not measured: ${trace.why}`);
  configs = configs.filter((c) => c !== 'dotnet-trace');
}

const workDir = mkdtempSync(join(tmpdir(), 'clrscope-cost-'));
const log = (line) => console.log(line);
if (programs.some((p) => p.name === 'csharpier')) ensureCsharpierInput(log);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/**
 * record's "clrscope's own cost: X ms CPU = Y% of the program's CPU (handler a, sampler b, ...)" line
 * (structs/profile/own-cost.ts), as { total, percent, parts: { handler: a, ... } } in ms; undefined without one.
 */
function ownCostOf(stderr) {
  const m = /^clrscope's own cost: ([\d.]+) ms CPU = ([\d.?]+)% of the program's CPU \(([^)]*)\)/m.exec(stderr ?? '');
  if (m === null) return undefined;
  const parts = Object.fromEntries(m[3].split(', ').map((p) => /^(.*) ([\d.]+)$/.exec(p)).filter(Boolean).map((p) => [p[1], Number(p[2])]));
  return { total: Number(m[1]), percent: Number(m[2]), parts };
}
const loadStart = loadavg()[0];
console.log(`real-programs-cost: ${programs.map((p) => p.name).join(', ')}; ${rounds} round(s) of ${configs.join(', ')}${values.attach ? ' (attached)' : ''}; load average ${loadStart.toFixed(2)} at start`);

// runs[program][config] = [{ cpuMs, wallMs, driveMs, outsideMs } per round]
const runs = new Map(programs.map((p) => [p.name, new Map(configs.map((c) => [c, []]))]));
const failures = [];
for (let round = 1; round <= rounds; round++) {
  for (const program of programs) {
    for (let k = 0; k < configs.length; k++) {
      const name = configs[(round - 1 + k) % configs.length];
      const c = CONFIGS[name];
      const mode = values.attach && c.mode === 'launch' ? 'attach' : c.mode;
      const env = c.env === 'loaded' ? loadedEnv : c.env === 'eventpipe' ? eventPipeEnv() : c.env;
      const r = await runOnce(program, mode, { round, workDir, recordOptions: c.recordOptions, dotnetTrace: trace.path, env });
      const failed = failureOf(r) ?? (r.problems.length > 0 ? r.problems.join('; ') : undefined);
      if (failed !== undefined) {
        failures.push(`round ${round} ${program.name} ${name}: ${failed}`);
        console.log(`round ${round} ${program.name} ${name}: FAILED ${failed}`);
        continue;
      }
      const own = ownCostOf(r.recordStderr);
      runs.get(program.name).get(name).push({ round, cpuMs: r.cpuMs, wallMs: r.wallMs, driveMs: r.driveMs, outsideMs: r.clrscopeCpuMs, own });
      console.log(`round ${round} ${program.name.padEnd(10)} ${name.padEnd(12)} CPU ${(r.cpuMs / 1000).toFixed(2)} s, wall ${(r.wallMs / 1000).toFixed(2)} s${r.driveMs !== undefined ? `, ${(LOAD_REQUESTS / (r.driveMs / 1000)).toFixed(0)} requests/s` : ''}${r.clrscopeCpuMs !== undefined ? `, collector ${(r.clrscopeCpuMs / 1000).toFixed(2)} s` : ''}`);
    }
  }
}
rmSync(workDir, { recursive: true, force: true });
if (eventPipeDir !== undefined) rmSync(eventPipeDir, { recursive: true, force: true });

/** Median ratio of `pick` to bare's, and the lowest and highest ratio of runs paired by round. */
function ratio(list, bare, pick) {
  const byRound = new Map(bare.map((b) => [b.round, pick(b)]));
  const paired = list.filter((r) => byRound.has(r.round)).map((r) => pick(r) / byRound.get(r.round));
  return { ratio: median(list.map(pick)) / median(bare.map(pick)), low: Math.min(...paired), high: Math.max(...paired) };
}
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(3) : '-');
const report = [];
for (const program of programs) {
  const bare = runs.get(program.name).get('bare');
  for (const name of configs) {
    const list = runs.get(program.name).get(name);
    if (list.length === 0 || bare.length === 0) continue;
    const cpu = ratio(list, bare, (r) => r.cpuMs);
    const wall = ratio(list, bare, (r) => r.wallMs);
    // Throughput's cost: the time the fixed load took, as a ratio (1.05 = 5% fewer requests a second).
    const load = list[0].driveMs !== undefined ? ratio(list, bare, (r) => r.driveMs) : undefined;
    report.push({
      program: program.name, config: name, runs: list.length,
      cpuMs: median(list.map((r) => r.cpuMs)), cpu, wall, load,
      requestsPerS: list[0].driveMs !== undefined ? LOAD_REQUESTS / (median(list.map((r) => r.driveMs)) / 1000) : undefined,
      collectorCpuMs: list[0].outsideMs !== undefined ? median(list.map((r) => r.outsideMs)) : undefined,
    });
  }
}
const loadEnd = loadavg()[0];
console.log('');
console.log('| program | config | runs | CPU ms | CPU ratio (spread) | wall ratio (spread) | throughput ratio (spread) | requests/s | collector CPU ms |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of report) {
  const spread = (x) => (x === undefined ? '-' : `${fmt(x.ratio)} (${fmt(x.low)}–${fmt(x.high)})`);
  console.log(`| ${r.program} | ${r.config} | ${r.runs} | ${r.cpuMs.toFixed(0)} | ${spread(r.cpu)} | ${spread(r.wall)} | ${spread(r.load)} | ${r.requestsPerS === undefined ? '-' : r.requestsPerS.toFixed(0)} | ${r.collectorCpuMs === undefined ? '-' : r.collectorCpuMs.toFixed(0)} |`);
}
// Where clrscope's own time went, as the profiler measured it in the program: robust to other work
// on the machine, unlike the ratios.
const owned = report.filter((r) => runs.get(r.program).get(r.config).some((x) => x.own !== undefined));
if (owned.length > 0) {
  const partNames = [...new Set(owned.flatMap((r) => runs.get(r.program).get(r.config).flatMap((x) => Object.keys(x.own?.parts ?? {}))))];
  console.log('');
  console.log(`| program | config | clrscope's own CPU ms | % of the program's | ${partNames.join(' | ')} |`);
  console.log(`|---|---|---|---|${partNames.map(() => '---').join('|')}|`);
  for (const r of owned) {
    const own = runs.get(r.program).get(r.config).map((x) => x.own).filter(Boolean);
    r.ownCost = { totalMs: median(own.map((o) => o.total)), percent: median(own.map((o) => o.percent)), parts: Object.fromEntries(partNames.map((p) => [p, median(own.map((o) => o.parts[p] ?? 0))])) };
    console.log(`| ${r.program} | ${r.config} | ${r.ownCost.totalMs.toFixed(0)} | ${r.ownCost.percent.toFixed(1)} | ${partNames.map((p) => r.ownCost.parts[p].toFixed(0)).join(' | ')} |`);
  }
}
console.log(`\nload average ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end (${loadEnd > 2 || loadStart > 2 ? 'other work competed for the 2 CPUs: the ratios are not to be trusted' : 'quiet'})`);
if (failures.length > 0) console.log(`\n${failures.length} run(s) failed and are left out:\n${failures.join('\n')}`);
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ configs, rounds, attach: values.attach, loadAverage: [loadStart, loadEnd], report, failures }, null, 1));
process.exit(failures.length > 0 ? 1 : 0);
