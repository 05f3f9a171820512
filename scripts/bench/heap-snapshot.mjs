// A heap snapshot of a live process with a ~1 GiB heap of 10 M objects: test/targets/LeakHeap with
// --items 5000000 --payload 176 (5 M LeakedItem of 32 bytes, each with its own 200-byte byte[],
// the list's 40 MB array: 10 M objects, 10 M references, 1.1 GiB). Measured, with /usr/bin/time
// around the real CLI:
//   1. `clrscope heap --pid PID -o FILE --top 1`: the snapshot (session, the runtime's walk, the
//      graph), saving it, and the analysis (dominator tree, retained bytes), wall time and peak RSS;
//   2. `clrscope heap FILE --top 1`: opening the saved snapshot and the same analysis;
//   3. the snapshot alone, in this process: takeHeapSnapshot, its time and the growth of this
//      process's peak RSS.
// Run after `npm run build` and `bash scripts/build-targets.sh`:
//   node scripts/bench/heap-snapshot.mjs [--items 5000000] [--payload 176]
// Prints a readable report and, last, one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'electron', 'cli', 'clrscope.js');
const { values } = parseArgs({ options: { items: { type: 'string', default: '5000000' }, payload: { type: 'string', default: '176' } } });
const dll = join(root, 'test', 'targets', 'LeakHeap', 'bin', 'out', 'LeakHeap.dll');
const dir = mkdtempSync(join(tmpdir(), 'clrscope-heap-bench-'));
const file = join(dir, 'big.clrheap');

const target = spawn('dotnet', [dll, '--items', values.items, '--payload', values.payload], { stdio: ['pipe', 'pipe', 'inherit'] });
let out = '';
target.stdout.on('data', (d) => { out += d; });
const started = Date.now();
while (!/READY (\d+)/.test(out)) {
  if (target.exitCode !== null) throw new Error(`LeakHeap exited: ${out}`);
  if (Date.now() - started > 300_000) throw new Error('LeakHeap did not get READY in 300 s');
  await new Promise((r) => setTimeout(r, 200));
}
const pid = /READY (\d+)/.exec(out)[1];
const targetRss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
console.log(`LeakHeap ${pid}: --items ${values.items} --payload ${values.payload}, RSS ${targetRss().toFixed(0)} MB, ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);

/** Runs the CLI under /usr/bin/time: wall seconds, peak RSS in MB, and what it printed. */
function timed(args) {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M', process.execPath, cli, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const m = /TIME ([\d.]+) (\d+)/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new Error(`clrscope ${args.join(' ')} failed: ${r.stderr}`);
  return { seconds: Number(m[1]), peakMb: Number(m[2]) / 1024, stdout: r.stdout, stderr: r.stderr };
}

const snap = timed(['heap', '--pid', pid, '-o', file, '--top', '3']);
const summary = /Heap of process .*$/m.exec(snap.stderr)?.[0] ?? '';
console.log(`1. heap --pid -o FILE (snapshot + save + analysis): ${snap.seconds.toFixed(1)} s, peak RSS ${snap.peakMb.toFixed(0)} MB`);
console.log(`   ${summary}`);
console.log(snap.stdout.split('\n').slice(0, 4).map((l) => `   ${l}`).join('\n'));
const fileMb = statSync(file).size / 2 ** 20;
const open = timed(['heap', file, '--top', '3']);
console.log(`2. heap FILE (open ${fileMb.toFixed(0)} MB .clrheap + analysis): ${open.seconds.toFixed(1)} s, peak RSS ${open.peakMb.toFixed(0)} MB`);

const { takeHeapSnapshot } = await import(pathToFileURL(join(root, 'dist', 'electron', 'services', 'heap', 'take-heap-snapshot.js')).href);
const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const before = peak();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const taken = await takeHeapSnapshot(Number(pid));
const walkSeconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const walkPeak = peak();
console.log(`3. the snapshot alone (in-process): ${walkSeconds.toFixed(1)} s (the runtime's walk ${(taken.walkMs / 1000).toFixed(1)} s; clrscope's CPU ${cpuSeconds.toFixed(1)} s), ${taken.stats.objects.toLocaleString('en-US')} objects, ${taken.stats.references.toLocaleString('en-US')} references, ${(taken.stats.eventBytes / 2 ** 20).toFixed(0)} MB of events, peak RSS ${walkPeak.toFixed(0)} MB (${before.toFixed(0)} MB before)`);
console.log(`   target RSS after: ${targetRss().toFixed(0)} MB; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

target.stdin.end('exit\n');
await new Promise((r) => target.once('exit', r));
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({
  objects: taken.stats.objects, references: taken.stats.references, eventMb: taken.stats.eventBytes / 2 ** 20,
  cliSeconds: snap.seconds, cliPeakMb: snap.peakMb, openSeconds: open.seconds, openPeakMb: open.peakMb, fileMb,
  snapshotSeconds: walkSeconds, walkSeconds: taken.walkMs / 1000, snapshotCpuSeconds: cpuSeconds, snapshotPeakMb: walkPeak,
}));
