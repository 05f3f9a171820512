// Sample to pixel (issue 4: "from a sample taken in the target to its pixel on screen: under
// 500 ms"), in browser mode. Run after `npm run build` (and build:native, build:targets):
//   node scripts/bench/latency.mjs [--seconds 25] [--warmup 3] [--interval 10]
//     [--targets cpu-ratio,demo] [--no-wall]
// The workstation runs in this process (browser mode, as the end-to-end test starts it) and its
// page in Debian's Chromium; each target (Scenarios cpu-ratio, the Demo order service) is
// launched through the workstation and recorded live. For every draw of the flame canvas the
// page's diagnostics hook (renderer/src/views/diagnostics-hook.ts) records when it drew and the newest sample in the drawn tree (the worker
// stamps each flame tree with it, on the calendar through HELLO's (mono, unixNs) pair); the
// age of that sample when its pixels are drawn is the latency. Each new tree's newest sample
// is also followed through the stages: main process (this process hears the same stream
// events as the page's WebSocket and decodes them), page (its WebSocket frames), flame query
// posted to the worker, tree back, drawn. Ratios are headroom: 500 ms / measured; >= 1 meets
// the goal. Prints a readable report and, last, one JSON line.
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const argValue = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const config = {
  seconds: Number(argValue('seconds', 25)),
  warmupSeconds: Number(argValue('warmup', 3)),
  intervalMs: Number(argValue('interval', 10)),
  wall: !process.argv.includes('--no-wall'),
  targets: String(argValue('targets', 'cpu-ratio,demo')).split(','),
};
const GOAL_MS = 500;
const CHROMIUM = '/usr/bin/chromium';
const RENDERER = join(root, 'renderer', 'dist');
const dist = (p) => join(root, 'dist', p);
const dll = (name) => join(root, 'test', 'targets', name, 'bin', 'out', `${name}.dll`);
// The program runs past the measurement, so it is still busy when the session is stopped.
const runSeconds = config.warmupSeconds + config.seconds + 30;
const TARGETS = {
  'cpu-ratio': { dll: dll('Scenarios'), args: ['cpu-ratio', '--seconds', String(runSeconds)], what: 'Scenarios cpu-ratio (burn-heavy and burn-light: about 1.5 cores of CPU)' },
  demo: { dll: dll('Demo'), args: ['--seconds', String(runSeconds)], what: 'Demo (the order service, 2 workers)' },
};

function missingPrerequisites() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push(`Chromium (${CHROMIUM}: apt-get install chromium)`);
  for (const f of ['electron/browser-mode/server.js', 'electron/services/workstation/workstation-service.js', 'structs/wire/decoder.js']) {
    if (!existsSync(dist(f))) missing.push(`dist/${f} (npm run build)`);
  }
  for (const f of ['index.html', 'app.js', 'worker.js']) if (!existsSync(join(RENDERER, f))) missing.push(`renderer/dist/${f} (npm run build)`);
  if (!existsSync(join(root, 'native-profiler', 'build', 'libclrscope.so')) && process.env.CLRSCOPE_PROFILER_PATH === undefined) missing.push('the profiler library (npm run build:native)');
  for (const t of config.targets) {
    if (TARGETS[t] === undefined) missing.push(`a target named ${t} (known: ${Object.keys(TARGETS).join(', ')})`);
    else if (!existsSync(TARGETS[t].dll)) missing.push(`${TARGETS[t].dll} (npm run build:targets)`);
  }
  if (spawnSync('dotnet', ['--version']).status !== 0) missing.push('dotnet on PATH');
  return missing;
}

const missing = missingPrerequisites();
if (missing.length > 0) {
  console.error(`latency: cannot run, missing: ${missing.join('; ')}`);
  process.exit(1);
}

const { startBrowserMode } = await import(pathToFileURL(dist('electron/browser-mode/server.js')).href);
const { createWorkstationService } = await import(pathToFileURL(dist('electron/services/workstation/workstation-service.js')).href);
const { WireDecoder } = await import(pathToFileURL(dist('structs/wire/decoder.js')).href);
const { Recording } = await import(pathToFileURL(dist('structs/profile/recording.js')).href);

const wallNow = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs, q) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
};
const stats = (xs) => ({ n: xs.length, median: quantile(xs, 0.5), p95: quantile(xs, 0.95), max: xs.length === 0 ? NaN : Math.max(...xs), min: xs.length === 0 ? NaN : Math.min(...xs) });
const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–');
const describe = (s) => `median ${fmt(s.median)} ms, p95 ${fmt(s.p95)}, max ${fmt(s.max)} (n=${s.n})`;

/**
 * Installed in the page before its scripts run: timestamps the WebSocket's stream frames (by
 * stream offset) and the flame queries and replies that cross to the profile worker. Nothing
 * here changes what the page does; it only notes when things happen.
 */
function instrumentPage() {
  const log = { frames: [], queries: [], replies: [] };
  globalThis.__latencyLog = log;
  const wall = () => performance.timeOrigin + performance.now();
  const wsAdd = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message' || typeof listener !== 'function') return wsAdd.call(this, type, listener, options);
    return wsAdd.call(this, type, function (event) {
      const at = wall();
      const data = event.data;
      // A stream frame: [u8 1][u16 id length][id][f64 offset][bytes] (structs/api/ws-messages.ts).
      if (data instanceof ArrayBuffer && data.byteLength >= 11 && new Uint8Array(data)[0] === 1) {
        const view = new DataView(data);
        const idLength = view.getUint16(1, true);
        log.frames.push({ at, offset: view.getFloat64(3 + idLength, true), bytes: data.byteLength - 11 - idLength });
      }
      return listener.call(this, event);
    }, options);
  };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, transfer) {
    if (message !== null && typeof message === 'object' && message.kind === 'flame') log.queries.push({ at: wall(), requestId: message.requestId });
    return post.call(this, message, transfer);
  };
  const workerAdd = Worker.prototype.addEventListener;
  Worker.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message' || typeof listener !== 'function') return workerAdd.call(this, type, listener, options);
    return workerAdd.call(this, type, function (event) {
      const reply = event.data;
      if (reply !== null && typeof reply === 'object' && reply.kind === 'flame') {
        log.replies.push({ at: wall(), requestId: reply.requestId, newest: reply.tree.newestSampleUnixMs ?? null, nodes: reply.tree.nodeCount });
      }
      return listener.call(this, event);
    }, options);
  };
}

/** Everything the page noted since the last drain, and the diagnostics hook's last flame draws. */
function drainPage(page) {
  return page.evaluate(() => {
    const log = globalThis.__latencyLog;
    return {
      frames: log.frames.splice(0), queries: log.queries.splice(0), replies: log.replies.splice(0),
      draws: globalThis.__clrscopeTest.flameDraws(),
    };
  });
}

/**
 * The stream as the main process hands it on: per chunk, when it was emitted and the newest
 * sample it completed (and the newest so far), decoded with the collector's own decoder.
 */
function watchStream(workstation, sessionId) {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const chunks = [];
  let newestSoFar = -Infinity;
  let replaying = true;
  let failure = null;
  const stop = workstation.onEvent((event) => {
    if (event.type !== 'stream' || event.sessionId !== sessionId || failure !== null) return;
    const at = wallNow();
    const before = rec.sampleCount;
    try {
      decoder.push(event.chunk);
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      return;
    }
    let newestHere = -Infinity;
    const meta = rec.meta;
    if (meta !== undefined) {
      const mono = rec.sampleColumns().mono;
      let m = -Infinity;
      for (let i = before; i < mono.length; i++) if (mono[i] > m) m = mono[i];
      // The worker's formula exactly (flame-tree.ts), so equal samples give equal numbers.
      if (m > -Infinity) newestHere = Number(meta.startUnixNs) / 1e6 + (m - meta.startMono) / 1e6;
      if (newestHere > newestSoFar) newestSoFar = newestHere;
    }
    chunks.push({ at, offset: event.offset, bytes: event.chunk.length, samples: rec.sampleCount - before, newestHere, newestSoFar, replay: replaying });
  });
  return {
    chunks,
    rec,
    get failure() { return failure; },
    async subscribe() {
      await workstation.subscribe(sessionId);
      replaying = false;
    },
    stop,
  };
}

async function measureTarget(name, { workstation, server, browser }) {
  const target = TARGETS[name];
  const session = await workstation.launch({ command: 'dotnet', args: [target.dll, ...target.args], intervalMs: config.intervalMs, wall: config.wall });
  const stream = watchStream(workstation, session.id);
  await stream.subscribe();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  await page.addInitScript(instrumentPage);
  const log = { frames: [], queries: [], replies: [], draws: new Map() };
  const drain = async () => {
    const d = await drainPage(page);
    log.frames.push(...d.frames);
    log.queries.push(...d.queries);
    log.replies.push(...d.replies);
    for (const draw of d.draws) log.draws.set(draw.seq, draw);
  };
  try {
    // A page opened on a live recording selects it and shows its flame graph (workstation.ts loadSessions).
    await page.goto(`${server.url}&test`);
    await page.waitForFunction(() => globalThis.__clrscopeTest !== undefined, undefined, { timeout: 15000 });
    await page.waitForFunction((id) => {
      const hook = globalThis.__clrscopeTest;
      return hook.state().selectedSessionId === id && hook.flameDraws().some((d) => d.newestSampleUnixMs !== null);
    }, session.id, { timeout: 30000, polling: 100 });
    await drain();
    await sleep(config.warmupSeconds * 1000);
    await drain();
    const clock = await compareClocks(page, stream.rec.meta);
    const load = [loadavg()[0]];
    const from = wallNow();
    const end = from + config.seconds * 1000;
    // The hook keeps the last 256 draws; a live view draws a few times a second.
    while (wallNow() < end) {
      await sleep(1000);
      await drain();
    }
    const to = wallNow();
    await sleep(300);
    await drain();
    load.push(loadavg()[0]);
    return { name, what: target.what, pageErrors, clock, load, ...analyse(from, to, stream, log), streamFailure: stream.failure };
  } finally {
    stream.stop();
    await page.close();
    await workstation.stop(session.id).catch(() => undefined);
  }
}

/**
 * The stages are differences between three processes' clocks, so check they agree: the page
 * and this process read the same wall clock (the quickest of a few round trips bounds the
 * error), and the target's HELLO pair (mono, unixNs) should match this process's own reading
 * of the same two clocks (process.hrtime is CLOCK_MONOTONIC on Linux).
 */
async function compareClocks(page, meta) {
  let best = { pageMinusNodeMs: NaN, roundTripMs: Infinity };
  for (let i = 0; i < 10; i++) {
    const before = wallNow();
    const pageClock = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = wallNow();
    if (after - before < best.roundTripMs) best = { pageMinusNodeMs: pageClock - (before + after) / 2, roundTripMs: after - before };
  }
  const nodeWallMinusMonoMs = wallNow() - Number(process.hrtime.bigint()) / 1e6;
  const targetWallMinusMonoMs = meta === undefined ? NaN : Number(meta.startUnixNs) / 1e6 - meta.startMono / 1e6;
  return { ...best, nodeMinusTargetMs: nodeWallMinusMonoMs - targetWallMinusMonoMs };
}

function analyse(from, to, stream, log) {
  const draws = [...log.draws.values()].sort((a, b) => a.seq - b.seq);
  // A draw shows new data when its tree's newest sample differs from the draw before it; the
  // others redraw the same tree (a resize, a scroll) and are counted apart.
  const fresh = [];
  let redraws = 0;
  let previous = null;
  let prevFresh = null;
  const waits = [];
  for (const d of draws) {
    const isNew = d.newestSampleUnixMs !== null && d.newestSampleUnixMs !== previous;
    previous = d.newestSampleUnixMs;
    if (d.drawnAtUnixMs < from || d.drawnAtUnixMs > to || d.newestSampleUnixMs === null) continue;
    if (!isNew) {
      redraws++;
      continue;
    }
    fresh.push(d);
    // A sample taken just after the previous tree's newest one is first shown by this draw at
    // the earliest: the longest any sample waited to appear, near enough.
    if (prevFresh !== null) waits.push(d.drawnAtUnixMs - prevFresh.newestSampleUnixMs);
    prevFresh = d;
  }
  const liveChunks = stream.chunks.filter((c) => !c.replay);
  const ages = fresh.map((d) => d.drawnAtUnixMs - d.newestSampleUnixMs);

  const stages = { targetToMain: [], mainToPage: [], pageToQuery: [], worker: [], uiToDrawn: [] };
  let unmatched = 0;
  for (const d of fresh) {
    const newest = d.newestSampleUnixMs;
    const chunk = liveChunks.find((c) => c.newestSoFar >= newest - 1e-6);
    const reply = log.replies.find((r) => r.newest === newest);
    const query = reply === undefined ? undefined : log.queries.find((q) => q.requestId === reply.requestId);
    const last = chunk === undefined ? -1 : chunk.offset + chunk.bytes - 1;
    const frame = chunk === undefined ? undefined : log.frames.find((f) => f.offset <= last && last < f.offset + f.bytes);
    if (chunk === undefined || reply === undefined || query === undefined || frame === undefined) {
      unmatched++;
      continue;
    }
    stages.targetToMain.push(chunk.at - newest);
    stages.mainToPage.push(frame.at - chunk.at);
    stages.pageToQuery.push(query.at - frame.at);
    stages.worker.push(reply.at - query.at);
    stages.uiToDrawn.push(d.drawnAtUnixMs - reply.at);
  }

  // The stream itself, over the measured window: how old each chunk's newest sample is when
  // the main process hands the chunk on, and how often chunks come.
  const windowChunks = liveChunks.filter((c) => c.at >= from && c.at <= to);
  const chunkAges = windowChunks.filter((c) => c.newestHere > -Infinity).map((c) => c.at - c.newestHere);
  const chunkGaps = windowChunks.slice(1).map((c, i) => c.at - windowChunks[i].at);
  const windowQueries = log.queries.filter((q) => q.at >= from && q.at <= to);
  const queryGaps = windowQueries.slice(1).map((q, i) => q.at - windowQueries[i].at);
  const samplesPerS = windowChunks.reduce((n, c) => n + c.samples, 0) / ((to - from) / 1000);
  const nodes = log.replies.length === 0 ? 0 : log.replies[log.replies.length - 1].nodes;
  return {
    windowMs: to - from,
    age: stats(ages),
    worstWait: stats(waits),
    freshDraws: fresh.length,
    redraws,
    stages: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, stats(v)])),
    stagesUnmatched: unmatched,
    stream: { chunkAge: stats(chunkAges), chunkGap: stats(chunkGaps), samplesPerS, samplesTotal: stream.rec.sampleCount },
    queryGap: stats(queryGaps),
    treeNodes: nodes,
  };
}

const exportsDir = mkdtempSync(join(tmpdir(), 'clrscope-latency-'));
const result = { machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '' }, config, goalMs: GOAL_MS, targets: [] };
const load = [loadavg()[0]];
let workstation;
let server;
let browser;
let failed = false;
try {
  workstation = createWorkstationService({ exportsDir });
  server = await startBrowserMode({ workstation, rendererDir: RENDERER });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'], headless: true });
  result.browser = browser.version();
  console.log(`Chromium ${result.browser}, ${result.machine.cpus} CPUs, load average ${fmt(load[0], 2)} at start; sampling every ${config.intervalMs} ms${config.wall ? ' (CPU and wall)' : ' (CPU only)'}, flame graph of CPU time over the whole recording (the page's default)`);
  for (const name of config.targets) {
    const r = await measureTarget(name, { workstation, server, browser });
    const ratio = { median: GOAL_MS / r.age.median, p95: GOAL_MS / r.age.p95 };
    result.targets.push({ ...r, ratio });
    const s = r.stages;
    console.log(`\n${r.what}: ${fmt(r.windowMs / 1000)} s of live recording after ${config.warmupSeconds} s of warm-up, load average ${fmt(r.load[0], 2)} → ${fmt(r.load[1], 2)}`);
    console.log(`  ${r.freshDraws} draws with new data (and ${r.redraws} redraws of the same tree); ${fmt(r.stream.samplesPerS, 0)} samples/s arriving, ${r.stream.samplesTotal.toLocaleString('en-US')} in all, tree of ${r.treeNodes.toLocaleString('en-US')} nodes at the end`);
    console.log(`  age of the newest sample on screen when drawn: ${describe(r.age)}`);
    console.log(`    ratio 500 ms / median ${fmt(ratio.median, 2)}, 500 ms / p95 ${fmt(ratio.p95, 2)} (goal < 500 ms)`);
    console.log(`  longest any sample waited to appear (draw − the previous tree's newest sample): ${describe(r.worstWait)}; ratio 500 ms / p95 ${fmt(GOAL_MS / r.worstWait.p95, 2)}`);
    console.log(`  stages of each drawn tree's newest sample (${r.age.n - r.stagesUnmatched} of ${r.age.n} followed through):`);
    console.log(`    taken → main process hands its chunk on (profiler tick and socket): ${describe(s.targetToMain)}`);
    console.log(`    main process → page (WebSocket):                                    ${describe(s.mainToPage)}`);
    console.log(`    page → flame query posted (the refresh timer):                      ${describe(s.pageToQuery)}`);
    console.log(`    query → tree back from the worker (merge, summary before it):       ${describe(s.worker)}`);
    console.log(`    tree → drawn (state, React effect, next animation frame, draw):     ${describe(s.uiToDrawn)}`);
    console.log(`  stream: a chunk every ${fmt(r.stream.chunkGap.median)} ms (median), its newest sample ${describe(r.stream.chunkAge)} old when handed on; flame queries every ${fmt(r.queryGap.median)} ms (median)`);
    console.log(`  clocks: page − this process ${fmt(r.clock.pageMinusNodeMs, 2)} ms (±${fmt(r.clock.roundTripMs / 2, 2)}); this process − the target's HELLO pair ${fmt(r.clock.nodeMinusTargetMs, 2)} ms`);
    if (r.pageErrors.length > 0) console.log(`  page errors: ${r.pageErrors.slice(0, 5).join(' | ')}`);
    if (r.streamFailure !== null) console.log(`  this process could not decode the stream: ${r.streamFailure}`);
    if (r.age.n < 10) failed = true;
  }
} finally {
  await browser?.close();
  await server?.close();
  await workstation?.shutdown();
  rmSync(exportsDir, { recursive: true, force: true });
}
load.push(loadavg()[0]);
result.machine.loadAverageStartEnd = load;
console.log(`\nload average ${fmt(load[0], 2)} at start, ${fmt(load[1], 2)} at end (2 vCPUs: above ~2 other work competed for the CPU)`);
console.log(JSON.stringify(result));
if (failed) {
  console.error('latency: fewer than 10 draws with new data were measured for a target; see above.');
  process.exit(1);
}
