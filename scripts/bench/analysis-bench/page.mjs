// The analysis benchmark's page, bundled by analysis-bench.mjs and run in Chromium. Exposes
// window.benchAnalysis (functions table, sandwich and diff in the real profile worker) and
// window.benchScroll (the functions table, 50,000 rows, scrolled one step per frame).
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { synthesizeStream, functionName } from '../renderer-bench/synthetic-profile.mjs';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.ts';
import { FUNCTION_COLUMNS, functionCell } from '../../../renderer/src/views/functions-view.tsx';
import { VirtualTable } from '../../../renderer/src/views/virtual-table.tsx';
import { ask, median, nextFrame, quantile } from '../renderer-bench/page-tools.mjs';

window.benchAnalysis = async ({ samples, depth, stacks, functions, runs, chunkBytes }) => {
  const bytes = synthesizeStream({ samples, depth, stacks, functions, seed: 7 });
  const worker = new Worker('./worker.js', { type: 'module' });
  // The last bytes arrive one piece per run, so every run answers over a recording that has
  // grown (as a live one does on each refresh) and nothing computed before can be reused.
  const tail = Math.min(bytes.length, 256 * 1024);
  const fed = bytes.length - tail;
  for (let at = 0; at < fed; at += chunkBytes) {
    const chunk = bytes.slice(at, Math.min(fed, at + chunkBytes));
    worker.postMessage({ kind: 'chunk', offset: at, bytes: chunk }, [chunk.buffer]);
  }
  const piece = Math.ceil(tail / (2 * runs + 1));
  let offset = fed;
  const grow = () => {
    const chunk = bytes.slice(offset, Math.min(bytes.length, offset + piece));
    worker.postMessage({ kind: 'chunk', offset, bytes: chunk }, [chunk.buffer]);
    offset += chunk.length;
  };
  let requestId = 0;
  const summary = await ask(worker, { kind: 'summary', requestId: ++requestId });
  const half = summary.summary.durationMs / 2;
  const query = { metric: 'cpu', threadIds: null, fold: DEFAULT_FOLD };
  const time = async (request) => {
    const s = performance.now();
    const reply = await ask(worker, { ...request, requestId: ++requestId });
    return { ms: performance.now() - s, reply };
  };
  // The first query with a folding folds every stack once; later ones reuse it (a live refresh folds only new stacks).
  const cold = await time({ kind: 'functions', query });
  const table = cold.reply.table;
  // A function in the middle of the stacks: a sandwich with callers and callees.
  const name = table.name[Math.min(table.rowCount - 1, 40)];
  const times = { functions: [], sandwich: [], sandwichAlone: [], diffWindows: [], diffRecordings: [], flameFolded: [], flameRaw: [] };
  // The baseline: the same profile again (another seed), fed beside the session.
  const base = synthesizeStream({ samples, depth, stacks, functions, seed: 11 });
  for (let at = 0; at < base.length; at += chunkBytes) {
    const chunk = base.slice(at, at + chunkBytes);
    worker.postMessage({ kind: 'baseline-chunk', offset: at, bytes: chunk }, [chunk.buffer]);
  }
  let sandwichNodes = 0;
  let diffNodes = 0;
  for (let run = 0; run < runs; run++) {
    grow();
    times.functions.push((await time({ kind: 'functions', query })).ms);
    const s = await time({ kind: 'sandwich', query, name });
    // The sandwich comes with the functions table in one refresh: it reuses the table's pass over the samples.
    times.sandwich.push(s.ms);
    sandwichNodes = s.reply.sandwich.callers.nodeCount + s.reply.sandwich.callees.nodeCount;
    // Another function picked while samples keep arriving: the sandwich with its own pass over them.
    grow();
    times.sandwichAlone.push((await time({ kind: 'sandwich', query, name: table.name[Math.min(table.rowCount - 1, 41)] })).ms);
    const d = await time({ kind: 'diff', before: { source: 'current', query: { ...query, toMs: half } }, after: { source: 'current', query: { ...query, fromMs: half } }, normalize: 'share' });
    times.diffWindows.push(d.ms);
    diffNodes = d.reply.tree.nodeCount;
    times.diffRecordings.push((await time({ kind: 'diff', before: { source: 'baseline', query }, after: { source: 'current', query }, normalize: 'share' })).ms);
    times.flameFolded.push((await time({ kind: 'flame', query: { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false, fold: DEFAULT_FOLD } })).ms);
    times.flameRaw.push((await time({ kind: 'flame', query: { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false } })).ms);
  }
  worker.terminate();
  return {
    rows: table.rowCount, sandwichNodes, diffNodes, firstFunctionsMs: cold.ms,
    medianMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])),
  };
};

/** A functions table of `rows` synthetic functions, as the worker would send it. */
function syntheticTable(rows) {
  const name = Array.from({ length: rows }, (_, i) => functionName(i + 1));
  const self = Float64Array.from({ length: rows }, (_, i) => 1e9 / (i + 1));
  const total = Float64Array.from(self, (v, i) => v * (1 + (i % 7)));
  return {
    rowCount: rows, name, kind: new Uint8Array(rows), module: name.map(() => 'Contoso.dll'),
    self, total, selfSamples: Float64Array.from(self, (v) => Math.round(v / 1e7)), totalSamples: Float64Array.from(total, (v) => Math.round(v / 1e7)),
    totalValue: total[0] * 10, sampleCount: rows * 10,
  };
}

window.benchScroll = async ({ rows, frames, rowsPerFrame }) => {
  const table = syntheticTable(rows);
  const order = Int32Array.from({ length: rows }, (_, i) => i);
  const host = document.createElement('div');
  host.style.cssText = 'position:fixed;inset:0;display:flex;flex-direction:column;padding:10px;';
  document.body.appendChild(host);
  const root = createRoot(host);
  flushSync(() => root.render(createElement(VirtualTable, {
    testId: 'bench-table', rowCount: rows, columns: FUNCTION_COLUMNS, cell: (r, key) => functionCell(table, order, r, key),
  })));
  await nextFrame();
  const body = document.querySelector('[data-testid=bench-table-body]');
  const domRows = () => document.querySelectorAll('[data-testid=bench-table] .vrow').length;
  const frameMs = [];
  const workMs = [];
  let last = performance.now();
  for (let f = 0; f < frames; f++) {
    const now = await nextFrame();
    frameMs.push(now - last);
    last = now;
    // A scroll and everything it costs before the next paint: the scroll event, React's render, layout.
    const s = performance.now();
    body.scrollTop += rowsPerFrame * 22;
    body.dispatchEvent(new Event('scroll'));
    flushSync(() => undefined);
    void body.getBoundingClientRect();
    void document.querySelector(`[data-testid=bench-table] .vrow`)?.offsetHeight;
    workMs.push(performance.now() - s);
  }
  const reachedRow = Math.floor(body.scrollTop / 22);
  const rowsInDom = domRows();
  root.unmount();
  host.remove();
  const intervals = frameMs.slice(1);
  return {
    rows, frames, rowsPerFrame, reachedRow, rowsInDom,
    frameIntervalMs: { median: median(intervals), p95: quantile(intervals, 0.95), max: Math.max(...intervals) },
    workMs: { median: median(workMs), p95: quantile(workMs, 0.95), max: Math.max(...workMs) },
    fps: 1000 / median(intervals),
    framesOver16ms: intervals.filter((x) => x > 1000 / 60 + 2).length,
  };
};
