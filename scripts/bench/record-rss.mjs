// Memory of `clrscope record` over a long run: the CLI records WireLoad (200 threads blocked on
// one lock, so wall sampling takes its cap of 64 threads a tick, ~6,400 samples/s) for
// --seconds, and this script reads the clrscope process's RSS from /proc every 50 ms. It reports
// RSS while recording (at a quarter, half and the end of the run, and the most seen) and the
// peak of the whole run (VmHWM, which includes the read-back and the write at the end).
//
//   node scripts/bench/record-rss.mjs [--seconds 60] [--format clrscope|pb.gz] [--cli electron/cli/clrscope.js]
//
// --cli another build's CLI (e.g. an older checkout's) compares before and after in one sitting;
// CLRSCOPE_PROFILER_PATH then says which profiler library both use.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const seconds = Number(option('seconds', '60'));
const format = option('format', 'clrscope');
const cli = resolve(option('cli', join(root, 'electron', 'cli', 'clrscope.js')));
const target = join(root, 'test', 'targets', 'WireLoad', 'bin', 'out', 'WireLoad.dll');

function status(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'clrscope-record-rss-'));
const output = join(dir, `out.${format}`);
const started = Date.now();
const child = spawn(process.execPath, [cli, 'record', '-o', output, '--', 'dotnet', target, 'lock', '--threads', '200', '--seconds', String(seconds)], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stdout = '';
let stderr = '';
let recordingEndedAt;
child.stdout.on('data', (d) => {
  stdout += d;
  if (recordingEndedAt === undefined && /^RESULT /m.test(stdout)) recordingEndedAt = Date.now();
});
child.stderr.on('data', (d) => { stderr += d; });
const points = [];
let hwm = 0;
const timer = setInterval(() => {
  const s = status(child.pid);
  if (s === undefined || !Number.isFinite(s.rss)) return;
  if (Number.isFinite(s.hwm)) hwm = Math.max(hwm, s.hwm);
  points.push({ t: (Date.now() - started) / 1000, rss: s.rss, recording: recordingEndedAt === undefined });
}, 50);
const code = await new Promise((resolveExit) => child.on('close', (c) => resolveExit(c)));
clearInterval(timer);
if (code !== 0) {
  console.error(stderr);
  throw new Error(`clrscope record exited with ${code}`);
}
const during = points.filter((p) => p.recording);
const at = (fraction) => {
  const t = fraction * seconds;
  return during.reduce((best, p) => (Math.abs(p.t - t) < Math.abs(best.t - t) ? p : best), during[0]);
};
const mib = (v) => `${v.toFixed(1)} MiB`;
const samples = /recorded pid \d+[^:]*: ([\d,]+) samples/.exec(stderr)?.[1] ?? '?';
console.log(`clrscope record, WireLoad lock 200 threads, ${seconds} s, -o .${format} (${cli})`);
console.log(`  samples: ${samples}; output ${(statSync(output).size / (1 << 20)).toFixed(1)} MiB`);
console.log(`  RSS while recording: ${mib(at(0.25).rss)} at ${Math.round(0.25 * seconds)} s, ${mib(at(0.5).rss)} at ${Math.round(0.5 * seconds)} s, ${mib(during[during.length - 1].rss)} at the end; most ${mib(Math.max(...during.map((p) => p.rss)))}`);
console.log(`  peak RSS of the whole run (VmHWM, with the read-back and the write): ${mib(hwm)}`);
rmSync(dir, { recursive: true, force: true });
