// Builds small trees in the worker's flat layout from collapsed-stack text, for the state
// module's unit tests ("main;work;hot 42"; "@1,2" after the value names the threads).

import type { FlatTree, ParallelTree } from '../worker/protocol.js';

interface Node {
  label: string;
  children: Node[];
  total: number;
  self: number;
  threads: Set<number>;
}

export function parallelTreeFrom(text: string): ParallelTree {
  const root: Node = { label: 'all', children: [], total: 0, self: 0, threads: new Set() };
  for (const line of text.trim().split('\n')) {
    const m = /^(.*) (\d+)(?: @([\d,]+))?$/.exec(line.trim());
    if (m === null) throw new Error(`bad line ${line}`);
    const value = Number(m[2]);
    const threads = m[3] === undefined ? [] : m[3].split(',').map(Number);
    let at = root;
    at.total += value;
    threads.forEach((t) => at.threads.add(t));
    for (const frame of m[1].split(';')) {
      let next = at.children.find((c) => c.label === frame);
      if (next === undefined) {
        next = { label: frame, children: [], total: 0, self: 0, threads: new Set() };
        at.children.push(next);
      }
      next.total += value;
      threads.forEach((t) => next.threads.add(t));
      at = next;
    }
    at.self += value;
  }
  const labels: string[] = [];
  const flat: { node: Node; parent: number; depth: number }[] = [];
  const walk = (n: Node, parent: number, depth: number): void => {
    flat.push({ node: n, parent, depth });
    const me = flat.length - 1;
    for (const c of n.children) walk(c, me, depth + 1);
  };
  walk(root, -1, 0);
  const labelIndex = (l: string): number => {
    const i = labels.indexOf(l);
    if (i >= 0) return i;
    labels.push(l);
    return labels.length - 1;
  };
  const tree: FlatTree = {
    nodeCount: flat.length,
    label: Int32Array.from(flat.map((f) => labelIndex(f.node.label))),
    parent: Int32Array.from(flat.map((f) => f.parent)),
    depth: Uint16Array.from(flat.map((f) => f.depth)),
    total: Float64Array.from(flat.map((f) => f.node.total)),
    self: Float64Array.from(flat.map((f) => f.node.self)),
    labels,
    labelKind: new Uint8Array(labels.length),
    totalValue: root.total,
    sampleCount: root.total,
  };
  return { ...tree, threads: flat.map((f) => [...f.node.threads].sort((a, b) => a - b)), by: 'threads' };
}
