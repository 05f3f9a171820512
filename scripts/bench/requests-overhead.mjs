// Request tracking's cost (issue 27): RequestWeb (test/targets/RequestWeb) recorded by clrscope with
// and without --requests, each run under the same load from RequestWeb's own load generator (another
// process), the runs interleaved. Two figures: the requests per second the client got through
// and the server process's CPU per request (its own TotalProcessorTime, so other programs on a
// shared machine weigh on it less than on throughput), each as the ratio with / without
// --requests (goal <= 1.01). Cheap endpoints (GET /cpu/0 spins once and goes through routing with a route value,
// GET /fail answers at once) make the per-request cost of tracking as large a share as it gets.
// By default the bridge listens only part of the time past a budget of requests a second
// (native-profiler/core/request_duty.h): `requests` is that default, `all` records every request
// (--requests-rate all), whose cost is the bridge's full cost. `followed` follows each request
// through its awaits (--requests --async-source heap), whose own cost is the heap chains' probe on
// every resumption and a walk per sample. Each run's recorded requests are printed with the
// share of the time the bridge listened.
//   node scripts/bench/requests-overhead.mjs [--runs 5] [--seconds 5] [--parallel 4] [--paths /cpu/0,/fail] [--configs plain,requests,all,followed] [--pin]
// Needs `npm run build`, the built profiler and scripts/build-targets.sh. Prints a table for
// RESULTS.md and, last, one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' }, parallel: { type: 'string', default: '4' }, paths: { type: 'string', default: '/cpu/0,/fail' }, configs: { type: 'string', default: 'plain,requests,all,followed' }, pin: { type: 'boolean', default: false } } });
// --pin: the server on CPU 0 and the load generator on CPU 1 (taskset), so that the two do not
// take each other's time, the largest noise on a 2-core machine; the server's budget is then
// that of one CPU.
const PIN = values.pin;
const CONFIGS = { plain: [], requests: ['--requests'], all: ['--requests', '--requests-rate', 'all'], once: ['--requests', '--requests-rate', '1'], followed: ['--requests', '--async-source', 'heap'] };
const chosen = values.configs.split(',');
if (chosen.length === 0 || chosen.some((c) => !(c in CONFIGS)) || chosen[0] !== 'plain') {
  console.error(`requests-overhead: --configs is a list of ${Object.keys(CONFIGS).join(', ')}, plain first (the baseline).`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const SECONDS = Number(values.seconds);
const PARALLEL = Number(values.parallel);
if (!(RUNS >= 1 && RUNS <= 50) || !(SECONDS > 0 && SECONDS <= 600) || !(PARALLEL >= 1 && PARALLEL <= 64)) {
  console.error('requests-overhead: --runs 1..50, --seconds (0, 600], --parallel 1..64.');
  process.exit(2);
}
const cli = join(root, 'electron', 'cli', 'clrscope.js');
const dll = join(root, 'test', 'targets', 'RequestWeb', 'bin', 'out', 'RequestWeb.dll');
for (const p of [cli, dll, join(root, 'native-profiler', 'build', 'libclrscope.so')]) {
  if (!existsSync(p)) {
    console.error(`requests-overhead: ${p} is missing (npm run build, scripts/build-native.sh, scripts/build-targets.sh).`);
    process.exit(2);
  }
}
const work = mkdtempSync(join(tmpdir(), 'clrscope-requests-bench-'));

/** One recorded run: the client's requests per second, and the requests the recording holds. */
async function run(config, i) {
  const file = join(work, `run-${i}-${config}.clrscope`);
  const requests = config !== 'plain';
  const server = PIN ? ['taskset', '-c', '0', 'dotnet'] : ['dotnet'];
  const child = spawn(process.execPath, [cli, 'record', ...CONFIGS[config], '-o', file, '--', ...server, dll, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const closed = new Promise((resolve) => child.on('close', resolve));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('RequestWeb did not listen in 60 s')), 60_000);
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = /LISTENING (\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const client = PIN ? ['taskset', '-c', '1', 'dotnet'] : ['dotnet'];
  const load = spawnSync(client[0], [...client.slice(1), dll, 'load', '--url', url, '--seconds', String(SECONDS), '--parallel', String(PARALLEL), '--paths', values.paths], { encoding: 'utf8' });
  if (load.status !== 0) throw new Error(`the load generator failed: ${load.stderr}`);
  const sent = JSON.parse(load.stdout.split('\n').find((l) => l.startsWith('RESULT ')).slice(7)).sent;
  await fetch(`${url}/shutdown`, { method: 'POST' });
  await closed;
  const served = JSON.parse(out.split('\n').find((l) => l.startsWith('RESULT ')).slice(7));
  const cpuUsPerRequest = (served.cpuMs * 1000) / sent;
  let recorded = 0;
  let listened = 1;
  if (requests) {
    const report = spawnSync(process.execPath, [cli, 'report', file, '--requests', '--format', 'json'], { encoding: 'utf8' });
    const parsed = JSON.parse(report.stdout);
    recorded = parsed.requests.filter((r) => r.endpoint !== 'POST /shutdown').reduce((s, r) => s + r.count, 0);
    listened = parsed.tracking?.fraction ?? 1;
  }
  rmSync(file, { force: true });
  return { rps: sent / SECONDS, sent, recorded, listened, cpuUsPerRequest };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const results = Object.fromEntries(chosen.map((c) => [c, []]));
for (let i = 0; i < RUNS; i++) {
  // Interleaved, rotating which goes first, so the machine's drift falls on all.
  const order = chosen.map((_, k) => chosen[(k + i) % chosen.length]);
  for (const config of order) {
    const r = await run(config, i);
    results[config].push(r);
    console.error(`run ${i + 1}/${RUNS} ${config.padEnd(8)}: ${r.rps.toFixed(0)} requests/s, ${r.cpuUsPerRequest.toFixed(1)} µs CPU a request${config !== 'plain' ? `, ${r.recorded} recorded of ${r.sent} sent, the bridge listening ${(100 * r.listened).toFixed(1)}% of the time` : ''}`);
  }
}
rmSync(work, { recursive: true, force: true });
const range = (rs, f, digits) => `${Math.min(...rs.map(f)).toFixed(digits)}–${Math.max(...rs.map(f)).toFixed(digits)}`;
const baseRps = median(results.plain.map((r) => r.rps));
const baseCpu = median(results.plain.map((r) => r.cpuUsPerRequest));
console.log(`| config | requests/s (median of ${RUNS}) | min–max | throughput ratio plain / it | server CPU µs a request (median) | min–max | CPU ratio it / plain |`);
console.log('|---|---|---|---|---|---|---|');
const summary = {};
for (const c of chosen) {
  const rs = results[c];
  const rps = median(rs.map((r) => r.rps));
  const cpu = median(rs.map((r) => r.cpuUsPerRequest));
  summary[c] = { rps, cpu, ratio: baseRps / rps, cpuRatio: cpu / baseCpu, allRecorded: c === 'plain' || rs.every((r) => r.recorded === r.sent), listened: median(rs.map((r) => r.listened)) };
  console.log(`| clrscope record ${CONFIGS[c].join(' ')} | ${rps.toFixed(0)} | ${range(rs, (r) => r.rps, 0)} | ${(baseRps / rps).toFixed(3)} | ${cpu.toFixed(1)} | ${range(rs, (r) => r.cpuUsPerRequest, 1)} | ${(cpu / baseCpu).toFixed(3)} |`);
}
// Each round's ratio to its own plain run: the machine's drift between rounds falls out.
for (const c of chosen.slice(1)) {
  const paired = results[c].map((r, i) => results.plain[i].rps / r.rps);
  console.log(`${c}: paired throughput ratios ${[...paired].sort((a, b) => a - b).map((x) => x.toFixed(3)).join(' ')}; median ${median(paired).toFixed(3)}`);
  summary[c].pairedRatio = median(paired);
}
console.log(JSON.stringify({ runs: RUNS, seconds: SECONDS, parallel: PARALLEL, paths: values.paths, pinned: PIN, summary }));
