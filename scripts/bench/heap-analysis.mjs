// The heap analysis on a synthetic snapshot of 10 M objects: the dominator tree with retained
// sizes, the per-type table, the paths from roots to one type, and peak memory. The graph is
// shaped like a heap: a spanning tree (each object referenced by an earlier one, biased toward
// recent ones, as allocation order is), extra references to random earlier objects (cycles and
// sharing that the dominator tree must see through), a linked list of 1 M objects (depth that
// would overflow any recursion), 500 types and 1,000 roots. Run after `npm run build`:
//   node scripts/bench/heap-analysis.mjs [--objects 10000000] [--extra 1.0] [--types 500]
// Prints a readable report and, last, one JSON line.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '10000000' },
    extra: { type: 'string', default: '1.0' },
    types: { type: 'string', default: '500' },
  },
});
const N = Number(values.objects);
const EXTRA = Number(values.extra);
const TYPES = Number(values.types);
const LIST = Math.min(1_000_000, Math.floor(N / 10));
const ROOTS = 1000;

const { HeapAnalysis } = await import(dist('structs/heap/heap-analysis.js'));

/** Peak resident memory of this process so far (VmHWM), in MB. */
function peakMb() {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m === null ? NaN : Number(m[1]) / 1024;
}
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

let seed = 42;
const rand = (k) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % k;
};

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const c0 = cpu();
const t0 = performance.now();
// Edges as CSR directly: each object's parent (tree edge) plus EXTRA random earlier objects on average.
const parentOf = new Int32Array(N);
const outDegree = new Int32Array(N + 1);
const treeStart = N - LIST;
for (let v = ROOTS; v < N; v++) {
  const p = v >= treeStart ? (v === treeStart ? rand(treeStart) : v - 1) : Math.max(0, v - 1 - rand(Math.min(v, 1 + rand(1000))));
  parentOf[v] = p;
  outDegree[p + 1]++;
}
const extraEdges = Math.floor(N * EXTRA);
const extraFrom = new Int32Array(extraEdges);
const extraTo = new Int32Array(extraEdges);
for (let e = 0; e < extraEdges; e++) {
  const to = 1 + rand(N - 1);
  const from = rand(N);
  extraFrom[e] = from;
  extraTo[e] = to;
  outDegree[from + 1]++;
}
for (let v = 0; v < N; v++) outDegree[v + 1] += outDegree[v];
const edgeStart = outDegree;
const edgeTarget = new Int32Array(edgeStart[N]);
const fill = edgeStart.slice(0, N);
for (let v = ROOTS; v < N; v++) edgeTarget[fill[parentOf[v]]++] = v;
for (let e = 0; e < extraEdges; e++) edgeTarget[fill[extraFrom[e]]++] = extraTo[e];
const nodeType = new Int32Array(N);
const nodeSize = new Float64Array(N);
for (let v = 0; v < N; v++) {
  nodeType[v] = v >= treeStart ? TYPES - 1 : rand(TYPES - 1);
  nodeSize[v] = 24 + 8 * rand(16);
}
const snapshot = {
  typeNames: Array.from({ length: TYPES }, (_, t) => `Bench.Type${t}`),
  names: ['static var Bench.Roots'],
  nodeCount: N,
  nodeType,
  nodeSize,
  nodeAddress: new Float64Array(N),
  edgeStart,
  edgeTarget,
  edgeName: undefined,
  rootKind: new Uint8Array(ROOTS),
  rootName: new Int32Array(ROOTS),
  rootTarget: Int32Array.from({ length: ROOTS }, (_, r) => r),
};
const built = performance.now();
const cBuilt = cpu();
const snapshotMb = rssMb();

const analysis = new HeapAnalysis(snapshot);
const dominated = performance.now();
const cDominated = cpu();
const afterDominatorsPeak = peakMb();
const types = analysis.typeStats();
const typed = performance.now();
const cTyped = cpu();
const paths = analysis.pathsTo(`Bench.Type${TYPES - 1}`);
const pathed = performance.now();
const cPathed = cpu();

const s = (a, b) => ((b - a) / 1000).toFixed(2);
// Wall and CPU seconds: on a shared machine the wall time includes waiting for a core.
const both = (a, b, ca, cb) => `${s(a, b)} s (CPU ${s(ca, cb)} s)`;
console.log(`heap analysis: ${N.toLocaleString('en-US')} objects, ${edgeTarget.length.toLocaleString('en-US')} references, ${TYPES} types, ${ROOTS} roots, a list of ${LIST.toLocaleString('en-US')}`);
console.log(`  building the snapshot          ${both(t0, built, c0, cBuilt)}   RSS ${snapshotMb.toFixed(0)} MB`);
console.log(`  dominator tree + retained      ${both(built, dominated, cBuilt, cDominated)}   peak RSS ${afterDominatorsPeak.toFixed(0)} MB (reachable ${analysis.dominators.reachable.toLocaleString('en-US')})`);
console.log(`  types table                    ${both(dominated, typed, cDominated, cTyped)}   (${types.length} types; top retains ${types[0].retainedBytes.toLocaleString('en-US')} bytes)`);
console.log(`  paths to the list's type       ${both(typed, pathed, cTyped, cPathed)}   (${paths.length} paths)`);
console.log(`  peak RSS                       ${peakMb().toFixed(0)} MB`);
console.log(JSON.stringify({
  objects: N, references: edgeTarget.length, buildS: Number(s(t0, built)), dominatorsS: Number(s(built, dominated)),
  typesS: Number(s(dominated, typed)), pathsS: Number(s(typed, pathed)),
  dominatorsCpuS: Number(s(cBuilt, cDominated)), typesCpuS: Number(s(cDominated, cTyped)), pathsCpuS: Number(s(cTyped, cPathed)), snapshotRssMb: Math.round(snapshotMb), peakRssMb: Math.round(peakMb()),
}));
