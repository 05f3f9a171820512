// A flame tree of exactly `nodes` nodes for the drawing benchmark, made by the real merge
// from a synthetic profile (one weighted sample per distinct stack, heavy-tailed weights),
// then cut to the first `nodes` nodes of its preorder (a prefix of a preorder is still a
// tree) with totals summed again.
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.ts';
import { WireEncoder } from '../../../structs/wire/encoder.ts';
import { buildFlameTree } from '../../../renderer/src/worker/flame-tree.ts';
import { functionName, makeStacks, rng } from './synthetic-profile.mjs';

function recordingOf(stacks, weights, seed) {
  const rand = rng(seed);
  const enc = new WireEncoder(stacks.length * 220 + (1 << 20));
  const mono0 = 1_000_000_000;
  enc.preamble().hello({ pid: 1, flags: 3, mono: mono0, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: 'bench' });
  enc.thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: mono0, name: 'main' });
  const used = new Set(stacks.flat());
  for (const f of used) enc.function({ functionId: f, kind: f % 10 === 0 ? 1 : 0, name: functionName(f), module: f % 10 === 0 ? 'libcoreclr.so' : 'Contoso.dll', file: '' });
  stacks.forEach((s, i) => {
    const cpuNs = Math.max(1, Math.round(weights[i] * (0.5 + rand())));
    enc.sample({ mono: mono0 + i * 1000, threadId: 1, flags: 1, cpuNs, wallNs: 0, frames: Uint32Array.from(s).reverse() });
  });
  return recordingFromStream([enc.bytes()]);
}

export function synthesizeTree({ nodes, depth = 40, functions = 4000, seed = 11 }) {
  // About six new nodes per distinct stack; make enough stacks to pass `nodes`.
  const { stacks } = makeStacks({ stacks: Math.ceil(nodes / 5), depth, functions, seed });
  const rand = rng(seed + 1);
  // Pareto-like weights: a few stacks are most of the time, as in real profiles.
  const weights = stacks.map(() => 1e6 / Math.pow(1 - rand() * 0.999999, 1.2));
  const full = buildFlameTree(recordingOf(stacks, weights, seed + 2), { metric: 'cpu', threadIds: null, inverted: false, groupByThread: false });
  return cut(full, nodes);
}

export function cut(tree, n) {
  if (tree.nodeCount < n) throw new Error(`the synthetic tree has only ${tree.nodeCount} nodes, fewer than ${n}`);
  const total = tree.self.slice(0, n);
  for (let i = n - 1; i > 0; i--) total[tree.parent[i]] += total[i];
  return {
    nodeCount: n,
    label: tree.label.slice(0, n),
    parent: tree.parent.slice(0, n),
    depth: tree.depth.slice(0, n),
    total,
    self: tree.self.slice(0, n),
    labels: tree.labels,
    labelKind: tree.labelKind,
    totalValue: total[0],
    sampleCount: tree.sampleCount,
  };
}

/** The same tree with every self value scaled by a random factor: what a live refresh looks like. */
export function perturb(tree, seed) {
  const rand = rng(seed);
  const self = tree.self.map((v) => v * (0.8 + 0.4 * rand()));
  const total = self.slice();
  for (let i = tree.nodeCount - 1; i > 0; i--) total[tree.parent[i]] += total[i];
  return { ...tree, self, total, totalValue: total[0] };
}
