// Analysis benchmarks in Chromium (issue 13's goals), no build step needed:
//   node scripts/bench/analysis-bench.mjs [--samples 2000000] [--depth 40] [--stacks 17000]
//     [--functions 4000] [--runs 5] [--rows 50000] [--frames 240] [--rows-per-frame 3]
// (a) the functions table, the callers/callees sandwich and the diff (two halves of the
//     recording, and the recording against another one fed as the baseline) asked of the real
//     profile worker in a real Worker holding a synthetic --samples recording (the renderer
//     bench's generator), under default folding; goal: each within 100 ms. Medians of --runs,
//     after a first functions query that folds every stack once (reported too).
// (b) the functions table's view (VirtualTable with the functions view's own columns and
//     cells) holding --rows rows, scrolled --rows-per-frame rows on every animation frame for
//     --frames frames; goal: 60 fps, i.e. the frame interval stays at 16.7 ms.
// Ratios are headroom: goal / measured; >= 1 meets the goal. Prints a report and one JSON line.
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './renderer-bench/static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const argValue = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const num = (name, fallback) => Number(argValue(name, fallback));
const config = {
  samples: num('samples', 2_000_000),
  depth: num('depth', 40),
  stacks: num('stacks', 17_000),
  functions: num('functions', 4_000),
  runs: num('runs', 5),
  chunkBytes: 64 * 1024,
  rows: num('rows', 50_000),
  frames: num('frames', 240),
  rowsPerFrame: num('rows-per-frame', 3),
};
const GOALS = { queryMs: 100, frameMs: 1000 / 60 };
const fmt = (x, digits = 1) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function bundle(dir) {
  const common = { bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning', minify: true, define: { 'process.env.NODE_ENV': '"production"' } };
  await Promise.all([
    build({ ...common, entryPoints: [join(here, 'analysis-bench', 'page.mjs')], outfile: join(dir, 'page.js'), jsx: 'automatic' }),
    build({ ...common, entryPoints: [join(root, 'renderer', 'src', 'worker', 'profile-worker.ts')], outfile: join(dir, 'worker.js') }),
  ]);
  const css = ['theme.css', 'styles.css'].map((f) => readFileSync(join(root, 'renderer', f), 'utf8')).join('\n');
  writeFileSync(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><style>${css}</style><body></body><script type="module" src="./page.js"></script>`);
}


const dir = mkdtempSync(join(tmpdir(), 'clrscope-analysis-bench-'));
const load = [loadavg()[0]];
const result = { machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '' }, config, goals: GOALS };
let browser;
let server;
try {
  await bundle(dir);
  server = await serve(dir);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  result.browser = browser.version();
  console.log(`Chromium ${result.browser}, ${result.machine.cpus} CPUs, load average ${fmt(load[0], 2)} at start`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);

  const a = await page.evaluate((c) => window.benchAnalysis(c), config);
  result.analysis = { ...a, ratios: Object.fromEntries(Object.entries(a.medianMs).map(([k, v]) => [k, GOALS.queryMs / v])) };
  console.log(`\n(a) analysis in the worker: ${fmt(config.samples, 0)} samples, depth ${config.depth}, ${fmt(config.stacks, 0)} distinct stacks, default folding; median of ${config.runs} (goal < 100 ms each)`);
  console.log(`  first functions table (folds every stack once): ${fmt(a.firstFunctionsMs)} ms, ${fmt(a.rows, 0)} rows`);
  const label = { functions: 'functions table', sandwich: `sandwich with the table's pass over the samples (${fmt(a.sandwichNodes, 0)} nodes)`, sandwichAlone: 'sandwich after new samples (its own pass)', diffWindows: `diff of two halves (${fmt(a.diffNodes, 0)} nodes)`, diffRecordings: 'diff against another 2 M-sample recording', flameFolded: 'flame graph, folded', flameRaw: 'flame graph, as recorded' };
  for (const [k, v] of Object.entries(a.medianMs)) console.log(`  ${label[k]}: ${fmt(v)} ms, ratio ${fmt(GOALS.queryMs / v, 2)}`);

  const s = await page.evaluate((c) => window.benchScroll(c), config);
  result.scroll = { ...s, ratio: GOALS.frameMs / s.frameIntervalMs.median, workRatio: GOALS.frameMs / s.workMs.p95 };
  console.log(`\n(b) functions table, ${fmt(s.rows, 0)} rows, scrolled ${s.rowsPerFrame} rows per frame for ${s.frames} frames (to row ${fmt(s.reachedRow, 0)}; ${s.rowsInDom} rows in the DOM)`);
  console.log(`  frame interval median ${fmt(s.frameIntervalMs.median)} ms (${fmt(s.fps)} fps), p95 ${fmt(s.frameIntervalMs.p95)}, max ${fmt(s.frameIntervalMs.max)}; ${s.framesOver16ms} frames over 18.7 ms; ratio ${fmt(result.scroll.ratio, 2)} (goal 16.7 ms)`);
  console.log(`  work per scroll (event, render, layout): median ${fmt(s.workMs.median, 2)} ms, p95 ${fmt(s.workMs.p95, 2)}, max ${fmt(s.workMs.max, 2)}; headroom ${fmt(result.scroll.workRatio, 1)} at p95`);
} finally {
  await browser?.close();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
}
load.push(loadavg()[0]);
result.machine.loadAverageStartEnd = load;
console.log(`\nload average ${fmt(load[0], 2)} at start, ${fmt(load[1], 2)} at end (2 vCPUs: above ~2 other work competed for the CPU)`);
console.log(JSON.stringify(result));
