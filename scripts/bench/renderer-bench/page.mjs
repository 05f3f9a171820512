// The benchmark page: runs in Chromium, bundled by renderer-bench.mjs. Exposes
// window.benchMerge and window.benchFlame; each resolves to plain numbers.
import { synthesizeStream } from './synthetic-profile.mjs';
import { perturb, synthesizeTree } from './synthetic-tree.mjs';
import { FlameRenderer } from '../../../renderer/src/canvas/flame-renderer.ts';
import { ask, median, nextFrame, quantile } from './page-tools.mjs';

const summary = (xs) => ({ median: median(xs), p95: quantile(xs, 0.95), max: Math.max(...xs), n: xs.length });

window.benchMerge = async ({ samples, depth, stacks, functions, runs, chunkBytes }) => {
  const t0 = performance.now();
  const bytes = synthesizeStream({ samples, depth, stacks, functions, seed: 7 });
  const synthMs = performance.now() - t0;
  const worker = new Worker('./worker.js', { type: 'module' });
  worker.addEventListener('message', (e) => {
    if (e.data.kind === 'error' && e.data.requestId === null) console.error(`worker: ${e.data.message}`);
  });
  const query = { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false };
  let requestId = 0;
  const e2e = [];
  const merge = [];
  const extra = { inverted: [], grouped: [], parallelCurrent: [], parallelWindow: [], summary: [] };
  let nodes = 0;
  for (let run = 0; run < runs; run++) {
    worker.postMessage({ kind: 'reset' });
    const start = performance.now();
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      // A fresh buffer per chunk, moved to the worker, as the bridge hands them over.
      const chunk = bytes.slice(at, at + chunkBytes);
      worker.postMessage({ kind: 'chunk', offset: at, bytes: chunk }, [chunk.buffer]);
    }
    const first = await ask(worker, { kind: 'flame', requestId: ++requestId, query });
    e2e.push(performance.now() - start);
    nodes = first.tree.nodeCount;
    const m0 = performance.now();
    await ask(worker, { kind: 'flame', requestId: ++requestId, query });
    merge.push(performance.now() - m0);
    const timed = async (list, request) => {
      const s = performance.now();
      await ask(worker, { ...request, requestId: ++requestId });
      list.push(performance.now() - s);
    };
    await timed(extra.inverted, { kind: 'flame', query: { ...query, inverted: true } });
    await timed(extra.grouped, { kind: 'flame', query: { ...query, groupByThread: true } });
    await timed(extra.parallelCurrent, { kind: 'parallel', query: { mode: 'current' } });
    await timed(extra.parallelWindow, { kind: 'parallel', query: { mode: 'window' } });
    await timed(extra.summary, { kind: 'summary' });
  }
  worker.terminate();
  return {
    samples, depth, stacks, streamBytes: bytes.length, synthMs, nodes,
    e2eMs: e2e, mergeMs: merge,
    extraMs: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, median(v)])),
  };
};

function flush(canvas) {
  // Canvas drawing is recorded and rasterized later; reading one pixel forces it now, so
  // the time measured includes the pixels, not only the recording of commands.
  canvas.getContext('2d').getImageData(0, 0, 1, 1);
}

function newCanvas(width, height) {
  document.body.replaceChildren();
  const canvas = document.createElement('canvas');
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.style.display = 'block';
  document.body.appendChild(canvas);
  return canvas;
}

/** Nodes along the widest path, from the root's widest child down, for a zoom sequence. */
function widestPath(tree, levels) {
  const path = [];
  let node = 0;
  for (let d = 0; d < levels; d++) {
    let best = -1;
    for (let c = node + 1; c < tree.nodeCount && tree.depth[c] > tree.depth[node]; c++) {
      if (tree.parent[c] === node && (best < 0 || tree.total[c] > tree.total[best])) best = c;
    }
    if (best < 0) break;
    path.push(best);
    node = best;
  }
  return path;
}

window.benchFlame = async ({ nodes, width, height, runs, frames }) => {
  const t0 = performance.now();
  const tree = synthesizeTree({ nodes });
  const variants = [1, 2, 3, 4].map((s) => perturb(tree, s));
  const synthMs = performance.now() - t0;
  const dpr = window.devicePixelRatio;

  // The app has drawn its own UI, text included, before its first flame graph; so does this
  // page, so the first run measures our code cold rather than the browser loading a font.
  const note = document.createElement('p');
  note.textContent = 'clrscope renderer benchmark';
  document.body.appendChild(note);
  const scratch = document.createElement('canvas').getContext('2d');
  scratch.font = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
  scratch.fillText('warm-up', 0, 10);
  scratch.getImageData(0, 0, 1, 1);
  await nextFrame();

  // First draw: a new renderer on a new canvas, the tree set and drawn, pixels flushed.
  const first = [];
  const parts = { construct: [], setTree: [], draw: [], flush: [] };
  let plan = { rects: 0, runs: 0 };
  for (let run = 0; run < runs; run++) {
    const canvas = newCanvas(width, height);
    await nextFrame();
    const s = performance.now();
    const r = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
    const a = performance.now();
    r.setTree(tree);
    const b = performance.now();
    r.draw();
    const c = performance.now();
    flush(canvas);
    const e = performance.now();
    first.push(e - s);
    parts.construct.push(a - s);
    parts.setTree.push(b - a);
    parts.draw.push(c - b);
    parts.flush.push(e - c);
    // Diagnostics only: how much one full-view frame draws (the plan is the renderer's own).
    const runs = Array.from(r.plan.node.subarray(0, r.plan.count)).filter((n) => n < 0).length;
    plan = { rects: r.plan.count - runs, runs };
    r.dispose();
  }

  // Zoom by clicks: one frame per click, down the widest path and back up.
  const canvas = newCanvas(width, height);
  const renderer = new FlameRenderer(canvas, { zoomAnimationMs: 0 });
  renderer.setTree(tree);
  renderer.draw();
  const path = widestPath(tree, 24);
  const clicks = [...path, ...[...path].reverse().slice(1), 0];
  const zoom = [];
  const zoomIntervals = [];
  let last = await nextFrame();
  for (let f = 0; f < frames; f++) {
    const now = await nextFrame();
    zoomIntervals.push(now - last);
    last = now;
    const s = performance.now();
    const node = clicks[f % clicks.length];
    if (node === 0) renderer.resetZoom(); else renderer.zoomTo(node);
    renderer.draw();
    flush(canvas);
    zoom.push(performance.now() - s);
  }

  // Animated zoom (the renderer's own animation): every frame it draws, flushed.
  const animated = [];
  const animIntervals = [];
  let lastAnimFrame = -1;
  const animCanvas = newCanvas(width, height);
  const anim = new FlameRenderer(animCanvas, {
    zoomAnimationMs: 300,
    onDraw: (drawMs) => {
      const s = performance.now();
      flush(animCanvas);
      animated.push(drawMs + performance.now() - s);
      // Frames of one animation come a rAF apart; a gap over 100 ms is the pause between two.
      const now = performance.now();
      if (lastAnimFrame >= 0 && now - lastAnimFrame < 100) animIntervals.push(now - lastAnimFrame);
      lastAnimFrame = now;
    },
  });
  anim.setTree(tree);
  anim.draw();
  for (const node of [path[3], 0, path[8], 0, path[Math.min(path.length - 1, 15)], 0]) {
    if (node === 0) anim.resetZoom(); else anim.zoomTo(node);
    await new Promise((resolve) => setTimeout(resolve, 380));
  }
  anim.dispose();

  // Live update: a new tree every frame while zoomed three levels in (the zoom is kept by path).
  renderer.zoomTo(path[2]);
  renderer.draw();
  const live = [];
  const liveIntervals = [];
  last = await nextFrame();
  for (let f = 0; f < frames; f++) {
    const now = await nextFrame();
    liveIntervals.push(now - last);
    last = now;
    const s = performance.now();
    renderer.setTree(variants[f % variants.length]);
    renderer.draw();
    flush(canvas);
    live.push(performance.now() - s);
  }
  const keptZoom = renderer.zoomedNode === path[2];
  // Search over the whole tree, for the record.
  const s = performance.now();
  // A frame three levels down the widest path: a real method name, not a common substring.
  const needle = tree.labels[tree.label[path[3]]];
  const found = renderer.search(needle);
  renderer.draw();
  flush(canvas);
  const searchMs = performance.now() - s;
  renderer.dispose();
  return {
    nodes: tree.nodeCount, width, height, dpr, synthMs, plan,
    firstDrawMs: first, firstDrawPartsMs: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(v)])), zoomFrameMs: summary(zoom), animatedFrameMs: summary(animated), liveUpdateMs: summary(live),
    zoomRafIntervalMs: median(zoomIntervals), animatedIntervalMs: median(animIntervals), liveRafIntervalMs: median(liveIntervals),
    keptZoom, searchMs, searchShare: found.share, searchNeedle: needle,
  };
};
