// Long-session benchmark (issue 11): a synthetic one-hour recording at the wall-sampling cap
// (64 threads per 10 ms tick, CPU and wall on every sample: 6,400 samples/s), fed at full speed
// (an hour compressed into however long the machine takes) through the real path: a program the
// workstation launched writes the stream to the real collector's socket, the workstation's
// session keeps it (spool file, or in memory as before the spool), one client hears every chunk.
// Reported, each in one run:
//   - the main process's RSS after minute 1 and after minute 60 (and the peak), with the stream
//     spooled to disk and with it kept in memory (the way before spooling): ratios 60 min / 1 min;
//   - the refresh cost: the renderer's profile worker (its core, in a process of its own) fed the
//     same stream; after minute 1 and after minute 60 (median of --runs, wall and CPU time): a
//     live refresh (one more tick's samples, then summary + wall flame graph), the same refresh
//     by a full rebuild from every sample (as before the kept sums), the last 10 s, a minute in
//     the middle, one thread, by thread; that process's RSS: ratios 60 min / 1 min;
//   - exports of the hour (--exports, pprof by default): each one's time and the main process's
//     peak RSS while it runs (pprof reads the samples back summed, other formats every sample);
//   - reopening: a fresh worker fed the whole file, to its first flame graph (wall, CPU), its RSS
//     then, and the first view that needs every sample afterwards (a window: decoded again, once);
//   - the worker's memory over the hour (--worker-memory): the worker core in a process of its own
//     fed the stream from the file in steps (the process does not hold the file), the views' queries
//     every 10 s of stream, RSS and JS heap + array buffers after minutes 1, 10, 30 and 60, for the
//     whole recording with the flame graph only (the stream's bytes kept), the whole recording with
//     a view that needs every sample (the last 10 s), and the last --keep-minutes kept with that view.
// Run after `npm run build`:
//   node scripts/bench/long-session.mjs [--minutes 60] [--threads 64] [--stacks 5000] [--depth 32] [--runs 5] [--modes spool,memory|none] [--exports pprof,speedscope,...|none] [--keep FILE]
//     [--refresh false] [--worker-memory keep,every,sums|none] [--page-memory keep,every,sums|none] [--keep-minutes 10] [--speed N]
// --speed N: the stream is sent at N times its own pace (default: as fast as the socket takes it).
// --page-memory (off by default: Chromium, a few minutes each) does the same through the real page
// in browser mode, reading the RSS of Chromium's renderer processes (the page and its worker).
// Prints a readable report and, last, one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const self = fileURLToPath(import.meta.url);
const root = join(dirname(self), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const argValue = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const num = (name, fallback) => Number(argValue(name, fallback));
const role = argValue('role', 'orchestrator');
const MiB = 1048576;
const fmtMiB = (b) => `${(b / MiB).toFixed(1)} MiB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
};

// ---- the "profiler": sends the stream file's first part, waits for the go file, sends the rest ----
if (role === 'profiler') {
  const [file, splitText, go] = process.argv.slice(process.argv.indexOf('--role') + 2);
  // One pause after each split (comma-separated), until the go file (then go.1, go.2, ...) appears.
  const splits = splitText.split(',').map(Number);
  const bytes = readFileSync(file);
  const socket = connect(process.env.CLRSCOPE_SOCKET);
  // --speed N (through the environment: the workstation launches this): N times the stream's own
  // pace (its bytes spread evenly over the hour); absent: as fast as the socket takes them.
  const speed = Number(process.env.CLRSCOPE_BENCH_SPEED ?? 0);
  const bytesPerMs = speed > 0 ? (bytes.length / (Number(process.env.CLRSCOPE_BENCH_MINUTES ?? 60) * 60_000)) * speed : 0;
  const send = async (from, to) => {
    // Paced from the end of the last pause: no burst to make up for the time spent paused.
    const started = performance.now();
    let sent = 0;
    for (let p = from; p < to; p += 1 << 20) {
      const piece = bytes.subarray(p, Math.min(to, p + (1 << 20)));
      if (bytesPerMs > 0) {
        const due = started + sent / bytesPerMs;
        if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      }
      sent += piece.length;
      if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve));
    }
  };
  socket.on('connect', async () => {
    let from = 0;
    for (const [k, split] of splits.entries()) {
      await send(from, split);
      from = split;
      const goFile = k === 0 ? go : `${go}.${k}`;
      while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await send(from, bytes.length);
    socket.end();
  });
  socket.on('close', () => process.exit(0));
  socket.on('error', (err) => { console.error(`profiler: ${err.message}`); process.exit(1); });
}

// ---- the workstation's main process: one session, RSS at minute 1 and at the end ----
else if (role === 'main') {
  const mode = argValue('mode', 'spool');
  const EXPORTS = String(argValue('exports', 'pprof')).split(',').filter((f) => f !== '' && f !== 'none');
  const file = argValue('file');
  const split = num('split');
  const dir = argValue('dir');
  const { createWorkstationService } = await import(dist('electron/services/workstation/workstation-service.js'));
  let spoolDir = null;
  if (mode === 'spool') {
    spoolDir = join(dir, `spool-${process.pid}`);
    mkdirSync(spoolDir);
    chmodSync(spoolDir, 0o700);
  }
  const ws = createWorkstationService({ spoolDir, libraryPath: process.execPath, listProcesses: async () => [], countersIntervalMs: 1000, connectTimeoutMs: 600000 });
  const client = ws.connect();
  let heard = 0;
  // As an adapter would: each chunk handed on (and then dropped here).
  client.onEvent((e) => { if (e.type === 'stream') heard += e.chunk.length; });
  await settle();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
  const go = join(dir, `go-${process.pid}`);
  const t0 = performance.now();
  const info = await ws.launch({ command: process.execPath, args: [self, '--role', 'profiler', file, String(split), go] });
  await client.subscribe(info.id);
  const until = async (check) => { while (!check()) await new Promise((resolve) => setTimeout(resolve, 20)); };
  await until(() => ws.streamStorage(info.id).length >= split);
  await settle();
  const rss1 = process.memoryUsage().rss;
  const heap1 = process.memoryUsage().heapUsed;
  const buffers1 = process.memoryUsage().arrayBuffers;
  const t1 = performance.now();
  writeFileSync(go, '');
  const total = statSync(file).size;
  await until(() => ws.streamStorage(info.id).length >= total);
  let stopped = false;
  while (!stopped) {
    stopped = (await ws.listSessions()).some((s) => s.id === info.id && s.state !== 'recording' && s.state !== 'starting');
    if (!stopped) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const t60 = performance.now();
  await settle();
  const rss60 = process.memoryUsage().rss;
  const heap60 = process.memoryUsage().heapUsed;
  const buffers60 = process.memoryUsage().arrayBuffers;
  const storage = ws.streamStorage(info.id);
  // A late page replaying the whole hour: from disk, in steps.
  const late = ws.connect();
  let replayed = 0;
  late.onEvent((e) => { if (e.type === 'stream') replayed += e.chunk.length; });
  const tr = performance.now();
  await late.subscribe(info.id);
  const replayMs = performance.now() - tr;
  await settle();
  const rssAfterReplay = process.memoryUsage().rss;
  clearInterval(sampler);
  peak = Math.max(peak, rssAfterReplay);
  // Exports of the hour, one after the other, each with its own peak (pprof reads the samples
  // back summed; .clrscope copies the stream; speedscope needs every sample).
  const exports = {};
  for (const format of EXPORTS) {
    await settle();
    const before = process.memoryUsage().rss;
    let exportPeak = before;
    const watch = setInterval(() => { exportPeak = Math.max(exportPeak, process.memoryUsage().rss); }, 50);
    const te = performance.now();
    const out = await ws.exportRecording({ sessionId: info.id, format, path: join(dir, `export-${process.pid}-${format}${format === 'pprof' ? '.pb.gz' : format === 'speedscope' ? '.speedscope.json' : `.${format}`}`) });
    const ms = performance.now() - te;
    clearInterval(watch);
    exports[format] = { ms, before, peak: Math.max(exportPeak, process.memoryUsage().rss), bytes: out.bytes };
    rmSync(out.path, { force: true });
  }
  await ws.closeSession(info.id);
  await settle();
  const rssClosed = process.memoryUsage().rss;
  await ws.shutdown();
  process.stdout.write(`${JSON.stringify({
    mode, rssBefore, rss1, rss60, peak, rssAfterReplay, rssClosed, exports, heap1, heap60, buffers1, buffers60, heard, replayed, replayMs,
    streamBytes: storage.length, bytesInMemory: storage.bytesInMemory, minute1Ms: t1 - t0, restMs: t60 - t1,
  })}\n`);
  process.exit(0);
}

// ---- the renderer's profile worker: a flame query after minute 1 and after minute 60 ----
else if (role === 'refresh') {
  const file = argValue('file');
  const split = num('split');
  const runs = num('runs', 5);
  const { ProfileWorkerCore } = await import(dist('renderer/renderer/src/worker/worker-core.js'));
  const core = new ProfileWorkerCore();
  const bytes = readFileSync(file);
  let id = 1;
  const feed = (from, to) => {
    for (let p = from; p < to; p += 64 * 1024) {
      const chunk = bytes.slice(p, Math.min(to, p + 64 * 1024));
      const out = core.handle({ kind: 'chunk', offset: p, bytes: chunk });
      if (out !== null && out.reply?.kind === 'error') throw new Error(out.reply.message);
    }
  };
  const { buildFlameTree } = await import(dist('renderer/renderer/src/worker/flame-tree.js'));
  const query = { metric: 'wall', threadIds: null, inverted: false, groupByThread: false };
  const timed = (ask) => {
    // One unmeasured query first: the first after new data builds what later ones reuse.
    ask();
    const times = [];
    const cpu = [];
    for (let r = 0; r < runs; r++) {
      const c = process.cpuUsage();
      const t = performance.now();
      ask();
      times.push(performance.now() - t);
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    }
    // Wall time, and the CPU time this thread spent (what it costs on a machine shared with
    // other work, where wall time also counts waiting for a core).
    return { wall: median(times), cpu: median(cpu) };
  };
  const flame = (q) => {
    const out = core.handle({ kind: 'flame', requestId: id++, query: q });
    if (out.reply.kind !== 'flame') throw new Error(JSON.stringify(out.reply));
    return out.reply.tree;
  };
  // A live refresh as the workstation asks for one: the summary and the flame graph, after
  // one more tick's samples (64 threads x 10 ms) arrived, so every timed refresh has new data.
  let fed = 0;
  const tickBytes = Math.ceil(split / 6000);
  const liveRefresh = () => {
    const to = Math.min(bytes.length, fed + tickBytes);
    feed(fed, to);
    fed = to;
    core.handle({ kind: 'summary', requestId: id++ });
    flame(query);
  };
  // The same through the full rebuild every refresh did before the kept sums (the worker's
  // per-sample path, still there for exports and checks), over the same recording.
  const rec = () => core.feed.recording;
  const fullRefresh = () => {
    core.handle({ kind: 'summary', requestId: id++ });
    buildFlameTree(rec(), query, core.labels, null);
  };
  const durationMs = () => {
    const r = rec();
    const { mono } = r.sampleColumns();
    return (mono[mono.length - 1] - r.meta.startMono) / 1e6;
  };
  const measure = () => {
    const live = timed(liveRefresh);
    const full = timed(fullRefresh);
    const end = durationMs();
    const last10s = timed(() => flame({ ...query, fromMs: end - 10_000 }));
    const oneThread = timed(() => flame({ ...query, threadIds: [1] }));
    const byThread = timed(() => flame({ ...query, groupByThread: true }));
    const middleMinute = timed(() => flame({ ...query, fromMs: end / 2, toMs: end / 2 + 60_000 }));
    // The incremental tree must be the full rebuild's.
    const a = flame(query);
    const b = buildFlameTree(rec(), query, core.labels, null);
    if (a.nodeCount !== b.nodeCount || a.totalValue !== b.totalValue || a.sampleCount !== b.sampleCount || a.total.some((v, i) => v !== b.total[i])) throw new Error('the incremental tree differs from the full rebuild');
    return { live, full, last10s, oneThread, byThread, middleMinute, nodes: a.nodeCount };
  };
  feed(0, split);
  fed = split;
  await settle();
  const rss1 = process.memoryUsage().rss;
  const at1 = measure();
  const tFeed = performance.now();
  feed(fed, bytes.length - 4 * tickBytes * (2 * runs + 2));
  fed = bytes.length - 4 * tickBytes * (2 * runs + 2);
  const feedMs = performance.now() - tFeed;
  await settle();
  const rss60 = process.memoryUsage().rss;
  const at60 = measure();
  // Reopening the hour's file: a fresh worker fed the whole file, then its first flame graph.
  core.handle({ kind: 'reset' });
  await settle();
  const tOpen = performance.now();
  const cOpen = process.cpuUsage();
  feed(0, bytes.length);
  const decodeCpu = process.cpuUsage(cOpen);
  const first = flame(query);
  const reopenMs = performance.now() - tOpen;
  const reopenCpu = process.cpuUsage(cOpen);
  const reopenCpuMs = (reopenCpu.user + reopenCpu.system) / 1000;
  const reopenDecodeCpuMs = (decodeCpu.user + decodeCpu.system) / 1000;
  if (first.sampleCount === 0) throw new Error('the reopened file gave no flame graph');
  await settle();
  // What the reopened worker holds (this process also holds the file's bytes it feeds from).
  const rssReopen = process.memoryUsage().rss;
  // The first view that needs every sample (a window with ragged ends) decodes them again, once.
  const cWindow = process.cpuUsage();
  const tWindow = performance.now();
  const endMs = (rec().sampleColumns().mono.at(-1) - rec().meta.startMono) / 1e6;
  flame({ ...query, fromMs: endMs / 2 + 500, toMs: endMs / 2 + 60_500 });
  const firstWindowMs = performance.now() - tWindow;
  const dWindow = process.cpuUsage(cWindow);
  const firstWindowCpuMs = (dWindow.user + dWindow.system) / 1000;
  process.stdout.write(`${JSON.stringify({ rss1, rss60, at1, at60, feedMs, reopenMs, reopenCpuMs, reopenDecodeCpuMs, rssReopen, firstWindowMs, firstWindowCpuMs, fileBytes: bytes.length, refresh1: at1.live.wall, refresh60: at60.live.wall })}\n`);
  process.exit(0);
}

// ---- the page in Chromium over the hour: its renderer processes' memory at minutes 1, 10, 30, 60 ----
else if (role === 'page') {
  const file = argValue('file');
  const marks = String(argValue('marks')).split(',').map(Number);
  const keepMinutes = argValue('keep-minutes', null);
  const views = argValue('views', 'every');
  const dir = argValue('dir');
  const { openWorkstationInChromium } = await import(dist('test/integration/support/workstation-in-chromium.js'));
  const { pageHeaps } = await import('./page-heaps.mjs');
  const { appState, hookReady } = await import(dist('test/integration/support/workstation-page.js'));
  const spoolDir = join(dir, `spool-page-${process.pid}`);
  mkdirSync(spoolDir);
  chmodSync(spoolDir, 0o700);
  const ui = await openWorkstationInChromium({ spoolDir, libraryPath: process.execPath, listProcesses: async () => [], countersIntervalMs: 1000, connectTimeoutMs: 600000 });
  const { page, workstation, server } = ui;
  const go = join(dir, `go-page-${process.pid}`);
  const info = await workstation.launch({ command: process.execPath, args: [self, '--role', 'profiler', file, marks.join(','), go], ...(keepMinutes === null ? {} : { keepMinutes: Number(keepMinutes) }) });
  // The page shows the running session at once, in the flame graph.
  await page.goto(`${server.url}&test`);
  await hookReady(page);
  if (views === 'every') {
    // The last 10 s: a view that needs every sample (the worker of a whole recording then keeps them all).
    await page.getByTestId('window-select').selectOption('last');
    await page.getByTestId('window-seconds').selectOption('10');
  }
  const rendererRss = () => {
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
    // All resident pages (VmRSS, shared libraries and fonts counted per process) and the
    // processes' own (RssAnon: the JS heaps, the worker's arrays).
    // pageRss/pageAnon: the one renderer with the most memory of its own, the page's (the others are Chromium's spares).
    const total = { rss: 0, anon: 0, processes: 0, pageRss: 0, pageAnon: 0 };
    const walk = (pid) => {
      for (const c of children.get(pid) ?? []) {
        try {
          if (readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) {
            const status = readFileSync(`/proc/${c}/status`, 'utf8');
            const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) * 1024;
            total.rss += kb('VmRSS');
            total.anon += kb('RssAnon');
            total.processes++;
            if (kb('RssAnon') > total.pageAnon) {
              total.pageAnon = kb('RssAnon');
              total.pageRss = kb('VmRSS');
            }
          }
        } catch {
          // Gone.
        }
        walk(c);
      }
    };
    walk(process.pid);
    return total;
  };
  const peak = { rss: 0, anon: 0, pageRss: 0, heaps: null };
  // One reading of the renderers, into the peaks; `heaps`: the page's JavaScript then.
  const note = (m, heaps) => {
    peak.rss = Math.max(peak.rss, m.rss);
    peak.anon = Math.max(peak.anon, m.anon);
    if (m.pageRss > peak.pageRss) {
      peak.pageRss = m.pageRss;
      peak.heaps = heaps;
    }
  };
  // The page's RSS twice a second, with its worker's heaps as they are (garbage included): what
  // the JavaScript held when the page's process peaked.
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = rendererRss();
      note(m, await pageHeaps(ui.browser, page, { collect: false }));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  const readings = [];
  const t0 = performance.now();
  for (const [k, minute] of [1, 10, 30, 60].entries()) {
    if (k >= marks.length) break;
    // The page has every byte up to the pause and its worker has read them (the summary reaches the minute).
    let state;
    for (;;) {
      state = await appState(page);
      if (state.streamBytes === marks[k] && (state.summary?.durationMs ?? 0) >= minute * 60_000 - 1000) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // A few refreshes at rest, as a user looking at it would see.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    state = await appState(page);
    const m = rendererRss();
    const heaps = await pageHeaps(ui.browser, page);
    note(m, heaps);
    readings.push({ minute, ...m, heaps, samples: state.summary?.sampleCount ?? 0, keptFromMs: state.summary?.keptFromMs ?? null, atS: (performance.now() - t0) / 1000 });
    writeFileSync(k === 0 ? go : `${go}.${k}`, '');
  }
  sampling = false;
  await sampler;
  await workstation.stop(info.id).catch(() => undefined);
  await ui.close();
  process.stdout.write(`${JSON.stringify({ keepMinutes: keepMinutes === null ? null : Number(keepMinutes), views, readings, peakRss: peak.rss, peakAnon: peak.anon, peakPageRss: peak.pageRss, peakHeaps: peak.heaps, totalMs: performance.now() - t0 })}\n`);
  process.exit(0);
}

// ---- the renderer's profile worker over the hour: its memory at minutes 1, 10, 30, 60 ----
else if (role === 'worker-memory') {
  const file = argValue('file');
  const marks = String(argValue('marks')).split(',').map(Number);
  const keepMinutes = argValue('keep-minutes', null);
  const views = argValue('views', 'every');
  const { ProfileWorkerCore } = await import(dist('renderer/renderer/src/worker/worker-core.js'));
  const core = new ProfileWorkerCore();
  if (keepMinutes !== null) core.handle({ kind: 'reset', keepMinutes: Number(keepMinutes) });
  let id = 1;
  const query = { metric: 'wall', threadIds: null, inverted: false, groupByThread: false };
  const ask = (request) => {
    const out = core.handle({ ...request, requestId: id++ });
    if (out.reply.kind === 'error') throw new Error(out.reply.message);
    return out.reply;
  };
  // What a page shows while it records: the summary and the flame graph, and with `every` a view
  // that needs every sample (the flame graph's last 10 s), asked every 10 s of the stream's time.
  // The CPU time of each refresh after minute 10 (a kept window's first cut is past by then): the
  // median, and the most, which a cut's rebuild of the window's sums costs once per step.
  const refreshCpu = [];
  const refresh = () => {
    const c = process.cpuUsage();
    const { summary } = ask({ kind: 'summary' });
    ask({ kind: 'flame', query });
    if (views === 'every') ask({ kind: 'flame', query: { ...query, fromMs: Math.max(0, summary.durationMs - 10_000) } });
    const d = process.cpuUsage(c);
    if (summary.durationMs > 11 * 60_000) refreshCpu.push((d.user + d.system) / 1000);
    return summary;
  };
  const fd = openSync(file, 'r');
  const size = statSync(file).size;
  const perTenSeconds = Math.max(64 * 1024, Math.floor(marks[0] / 6));
  let fed = 0;
  let nextRefresh = perTenSeconds;
  const feedTo = (to) => {
    while (fed < to) {
      const n = Math.min(64 * 1024, to - fed);
      const chunk = new Uint8Array(n);
      let got = 0;
      while (got < n) got += readSync(fd, chunk, got, n - got, fed + got);
      const out = core.handle({ kind: 'chunk', offset: fed, bytes: chunk });
      if (out !== null && out.reply?.kind === 'error') throw new Error(out.reply.message);
      fed += n;
      if (fed >= nextRefresh) {
        refresh();
        nextRefresh += perTenSeconds;
      }
    }
  };
  const readings = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const [i, minute] of [1, 10, 30, 60].entries()) {
    if (i >= marks.length) break;
    feedTo(marks[i]);
    const summary = refresh();
    await settle();
    const m = process.memoryUsage();
    readings.push({ minute, rss: m.rss, heap: m.heapUsed, buffers: m.arrayBuffers, samples: summary.sampleCount, keptFromMs: summary.keptFromMs });
  }
  feedTo(size);
  const cpu = process.cpuUsage(cpu0);
  closeSync(fd);
  const status = readFileSync('/proc/self/status', 'utf8');
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
  process.stdout.write(`${JSON.stringify({ keepMinutes: keepMinutes === null ? null : Number(keepMinutes), views, readings, peakRss: hwm, feedMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000,
    refreshCpuMedian: refreshCpu.length === 0 ? null : median(refreshCpu), refreshCpuMax: refreshCpu.length === 0 ? null : Math.max(...refreshCpu), refreshes: refreshCpu.length })}\n`);
  process.exit(0);
}

// ---- the orchestrator: the stream once, then each measurement in a process of its own ----
else {
  const MINUTES = num('minutes', 60);
  const THREADS = num('threads', 64);
  const STACKS = num('stacks', 5_000);
  const DEPTH = num('depth', 32);
  const FUNCTIONS = num('functions', 2_000);
  const RUNS = num('runs', 5);
  const MODES = String(argValue('modes', 'spool,memory')).split(',').filter((m) => m !== '' && m !== 'none');
  // The stream's sender paces itself from these (it is a program the workstation launches).
  if (argValue('speed', null) !== null) {
    process.env.CLRSCOPE_BENCH_SPEED = String(num('speed', 0));
    process.env.CLRSCOPE_BENCH_MINUTES = String(MINUTES);
  }
  const TICK_NS = 10_000_000;
  if (!existsSync(join(root, 'dist', 'electron', 'services', 'workstation', 'workstation.js'))) {
    console.error('dist/ is missing; run npm run build first.');
    process.exit(1);
  }
  const { WireEncoder } = await import(dist('structs/wire/encoder.js'));
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-long-session-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'hour.clrscope');

  // Deterministic pseudo-random numbers, skewed stack popularity (as ingest.mjs).
  let seed = 0x2545f491;
  const rand = () => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  const pick = (n) => Math.floor(rand() * n);
  const stacks = [];
  const trunks = Array.from({ length: 40 }, () => Array.from({ length: 8 }, () => 1 + pick(FUNCTIONS)));
  for (let k = 0; k < STACKS; k++) {
    const rootFirst = trunks[pick(trunks.length)].slice(0, DEPTH);
    while (rootFirst.length < DEPTH) rootFirst.push(1 + pick(FUNCTIONS));
    stacks.push(Uint32Array.from(rootFirst.reverse()));
  }

  const tGen = performance.now();
  const fd = openSync(file, 'wx', 0o600);
  const write = (bytes) => {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  };
  const enc = new WireEncoder(64 * MiB);
  const mono0 = 1_000_000_000;
  enc.preamble().hello({ pid: 1, flags: 3, mono: mono0, unixNs: 1_700_000_000_000_000_000n, intervalNs: TICK_NS, wallThreadsPerTick: THREADS, runtimeVersion: '10.0.0', profilerVersion: 'bench' });
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 1000 + t, clrThreadId: 0x7f0000000000 + t, mono: mono0, name: `worker-${t}` });
  for (let f = 1; f <= FUNCTIONS; f++) {
    enc.function({ functionId: f, kind: f % 10 === 0 ? 1 : 0, name: `Bench.Namespace.Type${f % 97}.Method${f}`, module: f % 10 === 0 ? 'libcoreclr.so' : 'Bench.dll', file: '' });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  const defined = new Uint8Array(STACKS);
  const ticksPerMinute = 60 * 1e9 / TICK_NS;
  let written = 0;
  let split = 0;
  // The stream's length at the end of each minute.
  const minuteEnds = [];
  for (let minute = 0; minute < MINUTES; minute++) {
    for (let tick = 0; tick < ticksPerMinute; tick++) {
      const mono = mono0 + (minute * ticksPerMinute + tick) * TICK_NS;
      for (let t = 1; t <= THREADS; t++) {
        const r = rand();
        const k = Math.floor(r * r * r * STACKS);
        if (defined[k] === 0) {
          defined[k] = 1;
          enc.stack(k + 1, 0, stacks[k]);
        }
        enc.stackSample(mono + t * 1000, t, 3, 1_000_000 + pick(9_000_000), TICK_NS, k + 1);
      }
    }
    const part = enc.takeBytes(true);
    write(part);
    written += part.length;
    minuteEnds.push(written);
    if (minute === 0) split = written;
  }
  const last = enc.end({ mono: mono0 + MINUTES * ticksPerMinute * TICK_NS, reason: 0 }).takeBytes(true);
  write(last);
  written += last.length;
  closeSync(fd);
  const samples = MINUTES * ticksPerMinute * THREADS;
  const keep = argValue('keep', null);
  if (keep !== null) copyFileSync(file, keep, constants.COPYFILE_EXCL);
  console.log(`stream: ${MINUTES} min × ${THREADS} threads × ${1e9 / TICK_NS} ticks/s = ${samples.toLocaleString('en-US')} samples (${(THREADS * 1e9 / TICK_NS).toLocaleString('en-US')}/s), `
    + `${fmtMiB(written)} (${(written / samples).toFixed(2)} B/sample), minute 1 ends at byte ${split.toLocaleString('en-US')}; generated in ${((performance.now() - tGen) / 1000).toFixed(1)} s`);

  const child = (args) => {
    const r = spawnSync(process.execPath, ['--expose-gc', self, ...args], { encoding: 'utf8', maxBuffer: 16 * MiB, stdio: ['ignore', 'pipe', 'inherit'] });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status})`);
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  const results = {};
  for (const mode of MODES) {
    const m = child(['--role', 'main', '--mode', mode, '--file', file, '--split', String(split), '--dir', dir, '--exports', String(argValue('exports', 'pprof'))]);
    if (m.heard !== written || m.replayed !== written) throw new Error(`${mode}: heard ${m.heard}, replayed ${m.replayed} of ${written} bytes`);
    results[mode] = m;
    console.log(`main process, stream ${mode === 'spool' ? 'spooled to disk' : 'kept in memory (before the spool)'}: RSS ${fmtMiB(m.rssBefore)} idle, `
      + `${fmtMiB(m.rss1)} after minute 1, ${fmtMiB(m.rss60)} after minute ${MINUTES} (×${(m.rss60 / m.rss1).toFixed(2)}), peak ${fmtMiB(m.peak)}; `
      + `JS heap + array buffers ${fmtMiB(m.heap1 + m.buffers1)} → ${fmtMiB(m.heap60 + m.buffers60)}; stream bytes in memory ${fmtMiB(m.bytesInMemory)}; a late page's replay of the hour ${(m.replayMs / 1000).toFixed(1)} s; `
      + `closing the session: RSS ${fmtMiB(m.rssClosed)}; ingest of minutes 2..${MINUTES}: ${(m.restMs / 1000).toFixed(1)} s`);
    for (const [format, e] of Object.entries(m.exports)) {
      console.log(`  export as ${format}: ${(e.ms / 1000).toFixed(1)} s, ${fmtMiB(e.bytes)} written, RSS ${fmtMiB(e.before)} before, peak ${fmtMiB(e.peak)} while it ran`);
    }
  }
  const memories = [];
  const KEEP = num('keep-minutes', 10);
  const marks = [0, 9, 29, 59].filter((m) => m < MINUTES).map((m) => minuteEnds[m]).join(',');
  for (const config of String(argValue('worker-memory', 'keep,every,sums')).split(',').filter((c) => c !== '' && c !== 'none')) {
    const args = ['--role', 'worker-memory', '--file', file, '--marks', marks, '--views', config === 'sums' ? 'sums' : 'every'];
    const r = child(config === 'keep' ? [...args, '--keep-minutes', String(KEEP)] : args);
    memories.push(r);
    const what = r.keepMinutes !== null ? `last ${r.keepMinutes} min kept, flame graph + last 10 s` : r.views === 'every' ? 'whole recording, flame graph + last 10 s (every sample held)' : 'whole recording, flame graph only (the stream\'s bytes held)';
    console.log(`worker memory, ${what}: ${r.readings.map((x) => `min ${x.minute} RSS ${fmtMiB(x.rss)} (JS heap + buffers ${fmtMiB(x.heap + x.buffers)}, ${x.samples.toLocaleString('en-US')} samples)`).join('; ')}; `
      + `peak RSS ${fmtMiB(r.peakRss)}; ×${(r.readings.at(-1).rss / r.readings[0].rss).toFixed(2)} RSS last / minute 1; fed in ${(r.feedMs / 1000).toFixed(1)} s, CPU ${(r.cpuMs / 1000).toFixed(1)} s; `
      + `a refresh after minute 11: median ${r.refreshCpuMedian?.toFixed(1)} ms CPU, at most ${r.refreshCpuMax?.toFixed(1)} ms (${r.refreshes} refreshes)`);
  }
  const pages = [];
  for (const config of String(argValue('page-memory', 'none')).split(',').filter((c) => c !== '' && c !== 'none')) {
    const args = ['--role', 'page', '--file', file, '--marks', marks, '--dir', dir, '--views', config === 'sums' ? 'sums' : 'every'];
    const r = child(config === 'keep' ? [...args, '--keep-minutes', String(KEEP)] : args);
    pages.push(r);
    const what = r.keepMinutes !== null ? `last ${r.keepMinutes} min kept, flame graph of the last 10 s` : r.views === 'every' ? 'whole recording, flame graph of the last 10 s' : 'whole recording, flame graph';
    // JS: the page's heap; the worker's heap in use, and its array buffers (after a collection at the
    // minutes' readings; as they were, garbage included, in the twice-a-second readings).
    const js = (h) => (h === null || h === undefined || h.workerJs < 0 ? 'JS unknown' : `JS page ${fmtMiB(h.pageJs)}, worker ${fmtMiB(h.workerJs)} of a ${fmtMiB(h.workerHeap)} heap + buffers ${fmtMiB(h.workerBuffers)}`);
    console.log(`page in Chromium (its renderer processes: RSS / own memory), ${what}: ${r.readings.map((x) => `min ${x.minute} ${fmtMiB(x.rss)} / ${fmtMiB(x.anon)} (${x.processes} processes; the page's ${fmtMiB(x.pageRss)} / ${fmtMiB(x.pageAnon)}; ${x.samples.toLocaleString('en-US')} samples; ${js(x.heaps)})`).join('; ')}; `
      + `peak ${fmtMiB(r.peakRss)} / ${fmtMiB(r.peakAnon)}, the page's RSS ${fmtMiB(r.peakPageRss)} (then: ${js(r.peakHeaps)}); ${(r.totalMs / 1000).toFixed(0)} s`);
  }
  const kept = memories.find((r) => r.keepMinutes !== null);
  for (const other of memories.filter((r) => r !== kept && kept !== undefined)) {
    console.log(`  kept / ${other.views === 'every' ? 'whole with every sample' : 'whole, flame only'}: RSS ${kept.readings.map((x, i) => `min ${x.minute} ×${(x.rss / other.readings[i].rss).toFixed(2)}`).join(', ')}; peak ×${(kept.peakRss / other.peakRss).toFixed(2)}`);
  }
  if (argValue('refresh', 'true') === 'false') {
    console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log(JSON.stringify({ minutes: MINUTES, threads: THREADS, samples, streamBytes: written, main: results, workerMemory: memories, pageMemory: pages }));
    process.exit(0);
  }
  const w = child(['--role', 'refresh', '--file', file, '--split', String(split), '--runs', String(RUNS)]);
  const ms = (x) => `${x.wall.toFixed(1)} ms (CPU ${x.cpu.toFixed(1)})`;
  const row = (a) => `live ${ms(a.live)}, full rebuild as before ${ms(a.full)}, last 10 s ${ms(a.last10s)}, one thread ${ms(a.oneThread)}, by thread ${ms(a.byThread)}, a middle minute ${ms(a.middleMinute)}; ${a.nodes} nodes`;
  console.log(`renderer worker, refresh = summary + wall flame graph after one more tick (wall and CPU time, median of ${RUNS}):`);
  console.log(`  after minute 1:  ${row(w.at1)}`);
  console.log(`  after minute ${MINUTES}: ${row(w.at60)}`);
  console.log(`  live refresh ×${(w.at60.live.wall / w.at1.live.wall).toFixed(2)} wall, ×${(w.at60.live.cpu / w.at1.live.cpu).toFixed(2)} CPU (end / minute 1); full rebuild ×${(w.at60.full.wall / w.at1.full.wall).toFixed(1)} wall, ×${(w.at60.full.cpu / w.at1.full.cpu).toFixed(1)} CPU; `
    + `RSS ${fmtMiB(w.rss1)} → ${fmtMiB(w.rss60)} (×${(w.rss60 / w.rss1).toFixed(2)}); fed minutes 2..${MINUTES} in ${(w.feedMs / 1000).toFixed(1)} s; reopening the file to a first flame graph (worker: decode + sums + tree) ${(w.reopenMs / 1000).toFixed(2)} s, CPU ${(w.reopenCpuMs / 1000).toFixed(2)} s of which decoding and summing ${(w.reopenDecodeCpuMs / 1000).toFixed(2)} s; `
    + `RSS then ${fmtMiB(w.rssReopen)} (${fmtMiB(w.fileBytes)} of it the file this process feeds from); the first view needing every sample (a 60 s window) then ${(w.firstWindowMs / 1000).toFixed(2)} s, CPU ${(w.firstWindowCpuMs / 1000).toFixed(2)} s (the samples decoded again, once)`);
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(JSON.stringify({ minutes: MINUTES, threads: THREADS, samples, streamBytes: written, main: results, workerMemory: memories, worker: w }));
}
