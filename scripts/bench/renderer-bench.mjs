// Renderer benchmarks in Chromium (issue 4's performance goals), no build step needed:
//   node scripts/bench/renderer-bench.mjs [--samples 2000000] [--depth 40] [--stacks 17000]
//     [--runs 5] [--nodes 100000] [--width 1600] [--height 900] [--dpr 1,2] [--frames 60]
//     [--skip-merge] [--skip-flame] [--d3]
// (a) merge: a synthetic recording through the wire encoder, posted in 64 KiB chunks to the
//     real profile worker (renderer/src/worker/profile-worker.ts) in a real Worker; reports
//     chunks -> first tree (decode + store + merge) and a second query on the stored samples
//     (the merge alone), samples/s, medians of --runs runs.
// (b) flame graph: a --nodes node tree drawn by FlameRenderer: first draw, zoom frames
//     (click and animated) and live-update frames, each timed with performance.now() around
//     the work plus a one-pixel readback that forces rasterization, on requestAnimationFrame-
//     aligned frames. --d3 also times d3-flame-graph on the same tree when it is installed
//     in scripts/bench/.tools/d3 (npm install --prefix scripts/bench/.tools/d3 d3-flame-graph@5 d3-selection@3).
// Ratios are headroom: goal / measured time, or measured rate / goal; >= 1 meets the goal.
// Prints a readable report and, last, one JSON line.
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './renderer-bench/static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const argValue = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const flag = (name) => process.argv.includes(`--${name}`);
const num = (name, fallback) => Number(argValue(name, fallback));
const config = {
  samples: num('samples', 2_000_000),
  depth: num('depth', 40),
  stacks: num('stacks', 17_000),
  functions: num('functions', 4_000),
  runs: num('runs', 5),
  chunkBytes: num('chunk', 64 * 1024),
  nodes: num('nodes', 100_000),
  width: num('width', 1600),
  height: num('height', 900),
  frames: num('frames', 60),
  dprs: String(argValue('dpr', '1,2')).split(',').map(Number),
};
const GOALS = { mergeSamplesPerS: 2_000_000, firstDrawMs: 100, frameMs: 16 };
const d3Dir = join(root, 'scripts', 'bench', '.tools', 'd3');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, digits = 1) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function bundle(dir) {
  const common = { bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning', minify: true };
  await Promise.all([
    build({ ...common, entryPoints: [join(here, 'renderer-bench', 'page.mjs')], outfile: join(dir, 'page.js') }),
    build({ ...common, entryPoints: [join(root, 'renderer', 'src', 'worker', 'profile-worker.ts')], outfile: join(dir, 'worker.js') }),
  ]);
  writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><style>body{margin:0}</style><body></body><script type="module" src="./page.js"></script>');
  if (flag('d3')) {
    if (!existsSync(join(d3Dir, 'node_modules', 'd3-flame-graph'))) {
      console.log(`--d3: d3-flame-graph is not installed in ${d3Dir}; skipping it.`);
    } else {
      await build({ ...common, entryPoints: [join(here, 'renderer-bench', 'd3-page.mjs')], outfile: join(dir, 'd3.js'), nodePaths: [join(d3Dir, 'node_modules')] });
      const css = join(d3Dir, 'node_modules', 'd3-flame-graph', 'dist', 'd3-flamegraph.css');
      writeFileSync(join(dir, 'd3.html'), `<!doctype html><meta charset="utf-8"><style>body{margin:0}${existsSync(css) ? readFileSync(css, 'utf8') : ''}</style><body></body><script type="module" src="./d3.js"></script>`);
    }
  }
}


async function openPage(browser, url, dpr, config) {
  const context = await browser.newContext({ viewport: { width: config.width + 40, height: config.height + 40 }, deviceScaleFactor: dpr });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.error(`page: ${m.text()}`); });
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(url);
  return { context, page };
}

const dir = mkdtempSync(join(tmpdir(), 'clrscope-renderer-bench-'));
const load = [loadavg()[0]];
const result = { machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '' }, config, goals: GOALS };
let browser;
let server;
try {
  await bundle(dir);
  server = await serve(dir);
  const base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'], headless: true });
  result.browser = browser.version();
  console.log(`Chromium ${result.browser}, ${result.machine.cpus} CPUs, load average ${fmt(load[0], 2)} at start`);

  if (!flag('skip-merge')) {
    const { context, page } = await openPage(browser, `${base}/index.html`, 1, config);
    const m = await page.evaluate((c) => window.benchMerge(c), config);
    await context.close();
    const e2e = median(m.e2eMs);
    const merge = median(m.mergeMs);
    result.merge = {
      ...m,
      e2eMedianMs: e2e, mergeMedianMs: merge,
      e2eSamplesPerS: config.samples / (e2e / 1000),
      mergeSamplesPerS: config.samples / (merge / 1000),
    };
    result.merge.mergeRatio = result.merge.mergeSamplesPerS / GOALS.mergeSamplesPerS;
    result.merge.e2eRatio = result.merge.e2eSamplesPerS / GOALS.mergeSamplesPerS;
    console.log(`\n(a) merge in the worker: ${fmt(config.samples, 0)} samples, depth ${config.depth}, ${fmt(config.stacks, 0)} distinct stacks, ${fmt(m.streamBytes / 2 ** 20, 0)} MiB of stream in ${config.chunkBytes / 1024} KiB chunks, tree of ${fmt(m.nodes, 0)} nodes; median of ${config.runs}`);
    console.log(`  merge (flame query over the stored samples): ${fmt(merge)} ms = ${fmt(result.merge.mergeSamplesPerS / 1e6, 2)} M samples/s, ratio ${fmt(result.merge.mergeRatio, 2)} (goal 2 M/s)`);
    console.log(`  chunks -> first tree (decode + store + merge): ${fmt(e2e)} ms = ${fmt(result.merge.e2eSamplesPerS / 1e6, 2)} M samples/s, ratio ${fmt(result.merge.e2eRatio, 2)}`);
    console.log(`  other queries on the same samples (ms): ${Object.entries(m.extraMs).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}`);
  }

  if (!flag('skip-flame')) {
    result.flame = [];
    for (const dpr of config.dprs) {
      const { context, page } = await openPage(browser, `${base}/index.html`, dpr, config);
      const f = await page.evaluate((c) => window.benchFlame(c), config);
      await context.close();
      const first = median(f.firstDrawMs);
      const row = {
        ...f,
        firstDrawMedianMs: first,
        firstDrawColdMs: f.firstDrawMs[0],
        firstDrawRatio: GOALS.firstDrawMs / first,
        zoomRatio: GOALS.frameMs / f.zoomFrameMs.median,
        animatedZoomRatio: GOALS.frameMs / f.animatedFrameMs.median,
        liveUpdateRatio: GOALS.frameMs / f.liveUpdateMs.median,
      };
      result.flame.push(row);
      console.log(`\n(b) flame graph, ${fmt(f.nodes, 0)} nodes, canvas ${f.width}x${f.height} CSS px at devicePixelRatio ${f.dpr}: ${f.plan.rects} frames + ${f.plan.runs} merged runs drawn at full view`);
      console.log(`  first draw (new renderer, setTree, draw, pixels): median ${fmt(first)} ms (first run ${fmt(row.firstDrawColdMs)} ms), ratio ${fmt(row.firstDrawRatio, 2)} (goal < 100 ms)`);
      console.log(`    of which (medians, ms): ${Object.entries(f.firstDrawPartsMs).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}`);
      console.log(`  zoom, one click per frame: median ${fmt(f.zoomFrameMs.median)} ms, p95 ${fmt(f.zoomFrameMs.p95)}, max ${fmt(f.zoomFrameMs.max)}; ratio ${fmt(row.zoomRatio, 2)} (goal < 16 ms); rAF interval median ${fmt(f.zoomRafIntervalMs)} ms`);
      console.log(`  zoom, animated (6 zooms of 300 ms): median ${fmt(f.animatedFrameMs.median)} ms over ${f.animatedFrameMs.n} frames, p95 ${fmt(f.animatedFrameMs.p95)}, max ${fmt(f.animatedFrameMs.max)}; ratio ${fmt(row.animatedZoomRatio, 2)}; frame interval median ${fmt(f.animatedIntervalMs)} ms`);
      console.log(`  live update (setTree + draw while zoomed, zoom kept: ${f.keptZoom}): median ${fmt(f.liveUpdateMs.median)} ms, p95 ${fmt(f.liveUpdateMs.p95)}, max ${fmt(f.liveUpdateMs.max)}; ratio ${fmt(row.liveUpdateRatio, 2)} (goal < 16 ms); rAF interval median ${fmt(f.liveRafIntervalMs)} ms`);
      console.log(`  search "${f.searchNeedle}" + draw: ${fmt(f.searchMs)} ms (share ${fmt(100 * f.searchShare)}%)`);
    }
  }

  if (flag('d3') && existsSync(join(dir, 'd3.html'))) {
    const { context, page } = await openPage(browser, `${base}/d3.html`, 1, config);
    const d = await page.evaluate((c) => window.benchD3(c), config);
    await context.close();
    result.d3 = { ...d, firstDrawRatio: GOALS.firstDrawMs / d.firstDrawMs, zoomRatio: GOALS.frameMs / d.zoomMs };
    console.log(`\n(c) d3-flame-graph ${d.version} (SVG), same ${fmt(d.nodes, 0)}-node tree, ${config.width} px wide, DPR 1:`);
    console.log(`  first render (flamegraph() on the selection, to the next frame): ${fmt(d.firstDrawMs)} ms, ratio ${fmt(result.d3.firstDrawRatio, 3)}; ${d.svgRects} <rect> elements`);
    console.log(`  with minFrameSize 1: ${fmt(d.firstDrawMinFrameMs)} ms; zoom click (to the next frame): ${fmt(d.zoomMs)} ms, ratio ${fmt(result.d3.zoomRatio, 3)}`);
  }
} finally {
  await browser?.close();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
}
load.push(loadavg()[0]);
result.machine.loadAverageStartEnd = load;
console.log(`\nload average ${fmt(load[0], 2)} at start, ${fmt(load[1], 2)} at end (2 vCPUs: above ~2 other work competed for the CPU)`);
console.log(JSON.stringify(result));
