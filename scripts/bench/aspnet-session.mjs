// Long real session benchmark (issue 11): an ASP.NET Core app under load, launched and watched in
// the workstation (browser mode, Debian's Chromium, the live flame graph on screen) for --minutes
// (30 by default). Reported every --every seconds, from this one run: the workstation's main
// process RSS (`npm start`'s browser mode, started as a process of its own so that the load
// generator and Playwright's client, which run in this one, are not counted in it), the page's
// RSS (Chromium's renderer processes, the analysis worker included), the recording's samples and
// stream bytes, the requests served, the JavaScript the page and its worker hold after a
// collection (heap and the worker's array buffers); at the end the ratios last / first reading.
// Not a timed test: figures for RESULTS.md. Needs `npm run build`, the built profiler, Chromium.
//   node scripts/bench/aspnet-session.mjs [--minutes 30] [--every 30] [--concurrency 8] [--keep DIR] [--heap-snapshots DIR] [--memory-dumps]
// --heap-snapshots writes a V8 heap snapshot of the workstation's process at the first and the last
// reading (it is started with --heapsnapshot-signal=SIGUSR2 and signalled), to compare what it holds.
// Prints a readable report and, last, one JSON line.
import { pageHeaps as readPageHeaps } from './page-heaps.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' }, every: { type: 'string', default: '30' }, concurrency: { type: 'string', default: '8' }, keep: { type: 'string' }, 'heap-snapshots': { type: 'string' }, 'memory-dumps': { type: 'boolean' } } });
const MINUTES = Number(values.minutes);
const EVERY_S = Number(values.every);
const CONCURRENCY = Number(values.concurrency);
if (!(MINUTES > 0 && MINUTES <= 600) || !(EVERY_S >= 1 && EVERY_S <= 3600) || !(CONCURRENCY >= 1 && CONCURRENCY <= 256)) {
  console.error('aspnet-session: --minutes takes (0, 600], --every 1..3600 seconds, --concurrency 1..256.');
  process.exit(2);
}
if (!existsSync(join(root, 'dist', 'test', 'integration', 'support', 'workstation-in-chromium.js')) || !existsSync(join(root, 'renderer', 'dist', 'app.js'))) {
  console.error('dist/ or renderer/dist is missing; run npm run build first.');
  process.exit(2);
}
const { appState, hookReady, missingForPage, openPage } = await import(dist('test/integration/support/workstation-page.js'));
const missing = missingForPage();
if (missing.length > 0) {
  console.error(`aspnet-session: missing ${missing.join(', ')}.`);
  process.exit(2);
}

const work = values.keep ?? mkdtempSync(join(tmpdir(), 'clrscope-aspnet-bench-'));
mkdirSync(work, { recursive: true });
const MiB = 1048576;

// ---- the app: a minimal API with a CPU-bound JSON endpoint, an awaiting one and an allocating one ----
const app = join(work, 'WebBench');
const dll = join(app, 'bin', 'Release', 'net10.0', 'WebBench.dll');
if (!existsSync(dll)) {
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'WebBench.csproj'), `<Project Sdk="Microsoft.NET.Sdk.Web">
  <PropertyGroup>
    <TargetFramework>net10.0</TargetFramework>
    <Nullable>enable</Nullable>
    <ImplicitUsings>enable</ImplicitUsings>
  </PropertyGroup>
</Project>
`);
  writeFileSync(join(app, 'Program.cs'), `using System.Security.Cryptography;
using System.Text;

var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.ClearProviders();
var app = builder.Build();

// CPU: build and serialize an order list.
app.MapGet("/orders/{n:int}", (int n) =>
    Results.Json(Enumerable.Range(0, Math.Clamp(n, 1, 2000)).Select(i => new Order(i, $"customer {i % 97}", i * 1.25m, DateTime.UnixEpoch.AddDays(i))).ToList()));

// Async: a short wait, then hashing.
app.MapGet("/slow", async () =>
{
    await Task.Delay(15);
    return Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(new string('x', 4096))));
});

// Allocation: a burst of short-lived buffers.
app.MapGet("/alloc", () =>
{
    long sum = 0;
    for (int i = 0; i < 200; i++) sum += new byte[4096 + i].Length;
    return sum;
});

app.Run();

record Order(int Id, string Customer, decimal Total, DateTime Placed);
`);
  const b = spawnSync('dotnet', ['build', '-c', 'Release'], { cwd: app, encoding: 'utf8' });
  if (b.status !== 0 || !existsSync(dll)) {
    console.error(`aspnet-session: building the app failed: ${(b.stdout + b.stderr).trim().split('\n').slice(-3).join(' ')}`);
    process.exit(1);
  }
}

const freePort = () => new Promise((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const port = await freePort();

/** A pid's resident bytes, all (VmRSS) and its own (RssAnon: without shared and file pages); 0 when gone. */
function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

/** Chromium's renderer processes among our descendants (the page and its worker live there). */
function rendererPids(ancestor) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // Gone.
    }
  }
  const out = [];
  const walk = (pid) => {
    for (const c of children.get(pid) ?? []) {
      try {
        if (readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) out.push(c);
      } catch {
        // Gone.
      }
      walk(c);
    }
  };
  walk(ancestor);
  return out;
}

// ---- the load: CONCURRENCY loops of keep-alive requests over the three endpoints ----
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const paths = ['/orders/200', '/slow', '/alloc'];
let served = 0;
let failures = 0;
let loading = true;
function request(path) {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) served++;
        else failures++;
        resolve();
      });
    });
    req.on('error', () => {
      failures++;
      setTimeout(resolve, 100);
    });
  });
}
async function loadLoop(k) {
  for (let i = k; loading; i++) await request(paths[i % paths.length]);
}

// ---- the workstation: browser mode in a process of its own, as `npm start` runs it ----
const snapshots = values['heap-snapshots'];
if (snapshots !== undefined) mkdirSync(snapshots, { recursive: true, mode: 0o700 });
const ws = spawn(process.execPath, [...(snapshots !== undefined ? ['--heapsnapshot-signal=SIGUSR2'] : []), join(root, 'electron', 'start.mjs'), '--browser'], {
  cwd: snapshots ?? root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let text = '';
  ws.stdout.on('data', (d) => {
    text += d;
    const m = /open (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(text);
    if (m) resolve(m[1]);
  });
  ws.on('exit', (code) => reject(new Error(`the workstation exited (${code}) before it printed its address`)));
  setTimeout(() => reject(new Error('the workstation printed no address within 30 s')), 30000);
});
ws.stdout.resume();
// What the page and its analysis worker hold in JavaScript, after a collection, beside the RSS.
async function pageHeaps(browser, page) {
  const out = await readPageHeaps(browser, page);
  if (out.error !== undefined) console.log(`  (the heaps could not be read: ${out.error})`);
  return out;
}

// --memory-dumps: Chromium's own account of each renderer process's memory by allocator (its
// memory-infra dump: malloc, PartitionAlloc, V8, Oilpan, Skia, ...), for memory the JavaScript
// figures above do not show. Returns "name size" strings of the largest, per renderer pid.
async function allocatorDump(browser) {
  const cdp = await browser.newBrowserCDPSession();
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const complete = new Promise((done) => cdp.once('Tracing.tracingComplete', done));
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], excludedCategories: ['*'], memoryDumpConfig: { triggers: [] } } });
  await cdp.send('Tracing.requestMemoryDump', { deterministic: true, levelOfDetail: 'detailed' });
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach();
  const byPid = new Map();
  for (const e of events) {
    const dumps = e.ph === 'v' ? e.args?.dumps : undefined;
    if (dumps?.allocators === undefined) continue;
    const top = [];
    for (const [name, node] of Object.entries(dumps.allocators)) {
      const depth = name.split('/').length;
      const size = node.attrs?.size?.value;
      if (size === undefined || depth > 2) continue;
      top.push([name, parseInt(size, 16)]);
    }
    top.sort((a, b) => b[1] - a[1]);
    byPid.set(e.pid, top.slice(0, 14).map(([n, v]) => `${n} ${(v / MiB).toFixed(1)}`));
  }
  return byPid;
}

const ui = await openPage();
const { page } = ui;
const readings = [];
let stopped = false;
try {
  await page.goto(`${url}&test`);
  await hookReady(page);
  await page.getByTestId('launch-open').click();
  await page.getByTestId('launch-command').fill('dotnet');
  await page.getByTestId('launch-args').fill(`${dll} --urls http://127.0.0.1:${port}`);
  await page.getByTestId('launch-submit').click();
  // Up when it answers.
  const upBy = Date.now() + 60000;
  while (served === 0) {
    if (Date.now() > upBy) throw new Error('the app did not answer within 60 s of its launch');
    await request('/alloc');
    if (served === 0) await new Promise((r) => setTimeout(r, 250));
  }
  const loops = Array.from({ length: CONCURRENCY }, (_, k) => loadLoop(k));
  const t0 = Date.now();
  const end = t0 + MINUTES * 60000;
  for (let next = t0 + EVERY_S * 1000; ; next += EVERY_S * 1000) {
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(next, end) - Date.now())));
    const state = await appState(page);
    const pages = rendererPids(process.pid).map(rssOf);
    const main = rssOf(ws.pid);
    const heaps = await pageHeaps(ui.browser, page);
    const r = { s: Math.round((Date.now() - t0) / 1000), mainRss: main.rss, mainAnon: main.anon, pageRss: pages.reduce((s, p) => s + p.rss, 0), pageAnon: pages.reduce((s, p) => s + p.anon, 0), ...heaps, samples: state.summary?.sampleCount ?? 0, streamBytes: state.streamBytes, served, failures, load: Number(loadavg()[0].toFixed(2)) };
    readings.push(r);
    const last = Date.now() >= end;
    if (snapshots !== undefined && (readings.length === 1 || last)) {
      // Node writes Heap.<date>.<pid>...heapsnapshot into its working folder on the signal.
      ws.kill('SIGUSR2');
      console.log(`  heap snapshot of ${ws.pid} asked for, in ${snapshots}`);
    }
    console.log(`${String(r.s).padStart(5)} s  main ${(r.mainRss / MiB).toFixed(0)} MiB (own ${(r.mainAnon / MiB).toFixed(0)})  page ${(r.pageRss / MiB).toFixed(0)} MiB (own ${(r.pageAnon / MiB).toFixed(0)}; JS ${(r.pageJs / MiB).toFixed(1)}, worker JS ${(r.workerJs / MiB).toFixed(1)} + buffers ${(r.workerBuffers / MiB).toFixed(1)})  samples ${r.samples}  stream ${(r.streamBytes / MiB).toFixed(1)} MiB  requests ${r.served} (${r.failures} failed)  load ${r.load}`);
    if (values['memory-dumps']) {
      try {
        const pids = new Set(rendererPids(process.pid));
        for (const [pid, top] of await allocatorDump(ui.browser)) if (pids.has(pid)) console.log(`    renderer ${pid}: ${top.join(', ')}`);
      } catch (err) {
        console.log(`    (no allocator dump: ${String(err).slice(0, 120)})`);
      }
    }
    if (Date.now() >= end) break;
  }
  loading = false;
  await Promise.all(loops);
  await page.getByTestId('session-stop').click();
  stopped = true;
} catch (e) {
  console.error(`aspnet-session: ${e.message}`);
} finally {
  loading = false;
  agent.destroy();
  await ui.browser.close();
  // Ctrl-C as a user would: the workstation stops its sessions and exits.
  const exited = new Promise((resolve) => ws.once('exit', resolve));
  ws.kill('SIGINT');
  await exited;
  if (values.keep === undefined) rmSync(work, { recursive: true, force: true });
}

if (readings.length < 2) {
  console.error('aspnet-session: too few readings to report.');
  process.exit(1);
}
const first = readings[0];
const last = readings[readings.length - 1];
const peak = (k) => Math.max(...readings.map((r) => r[k]));
const ratio = (k) => Number((last[k] / first[k]).toFixed(3));
console.log(`\nafter ${last.s} s: main ${(last.mainRss / MiB).toFixed(0)} MiB (peak ${(peak('mainRss') / MiB).toFixed(0)}, ×${ratio('mainRss')} of the first reading; own ×${ratio('mainAnon')}), page ${(last.pageRss / MiB).toFixed(0)} MiB (peak ${(peak('pageRss') / MiB).toFixed(0)}, ×${ratio('pageRss')}; own ×${ratio('pageAnon')}); samples ×${ratio('samples')}`);
console.log(JSON.stringify({ bench: 'aspnet-session', minutes: MINUTES, concurrency: CONCURRENCY, stopped, first, last, peakMainRss: peak('mainRss'), peakPageRss: peak('pageRss'), mainRatio: ratio('mainRss'), pageRatio: ratio('pageRss'), mainAnonRatio: ratio('mainAnon'), pageAnonRatio: ratio('pageAnon'), readings }));
process.exit(stopped ? 0 : 1);
