import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeDominators, SUPER_ROOT, UNREACHABLE } from './dominators.js';
import { HeapSnapshotBuilder, type HeapSnapshot } from './heap-snapshot.js';

/** A snapshot of `n` objects of one type, object i of size sizes[i] (default 1), the edges and the roots given. */
function graph(n: number, edges: [number, number][], roots: number[], sizes?: number[]): HeapSnapshot {
  const b = new HeapSnapshotBuilder();
  const t = b.typeId('T');
  for (let i = 0; i < n; i++) b.addNode(t, sizes?.[i] ?? 1);
  for (const [from, to] of edges) b.addEdge(from, to);
  for (const r of roots) b.addRoot('static', `r${r}`, r);
  return b.build();
}

test('a diamond: the join is dominated by the top, not by either side', () => {
  //   0 → 1 → 3, 0 → 2 → 3, 3 → 4
  const d = computeDominators(graph(5, [[0, 1], [0, 2], [1, 3], [2, 3], [3, 4]], [0], [10, 20, 30, 40, 50]));
  assert.deepEqual([...d.idom], [SUPER_ROOT, 0, 0, 0, 3]);
  assert.deepEqual([...d.retained], [150, 20, 30, 90, 50]);
  assert.equal(d.reachable, 5);
});

test('a cycle: each member dominates the next from the entry, and the entry retains the whole cycle', () => {
  // 0 → 1 → 2 → 3 → 1, 2 → 4
  const d = computeDominators(graph(5, [[0, 1], [1, 2], [2, 3], [3, 1], [2, 4]], [0], [1, 2, 4, 8, 16]));
  assert.deepEqual([...d.idom], [SUPER_ROOT, 0, 1, 2, 2]);
  assert.deepEqual([...d.retained], [31, 30, 28, 8, 16]);
});

test('an object held by two roots is dominated by the super-root alone; unreachable objects retain nothing', () => {
  // roots 0 and 1 both reach 2; 3 → 2 but nothing reaches 3
  const d = computeDominators(graph(4, [[0, 2], [1, 2], [3, 2]], [0, 1], [1, 1, 5, 7]));
  assert.deepEqual([...d.idom], [SUPER_ROOT, SUPER_ROOT, SUPER_ROOT, UNREACHABLE]);
  assert.deepEqual([...d.retained], [1, 1, 5, 0]);
  assert.equal(d.reachable, 3);
});

test('a linked list of 200,000 objects: no recursion to overflow, the head retains all', () => {
  const n = 200_000;
  const edges: [number, number][] = [];
  for (let i = 0; i + 1 < n; i++) edges.push([i, i + 1]);
  const d = computeDominators(graph(n, edges, [0]));
  assert.equal(d.retained[0], n);
  assert.equal(d.idom[n - 1], n - 2);
});

/** Dominators by definition: d dominates v when v cannot be reached from the roots without d. */
function bruteForceIdom(snap: HeapSnapshot): number[] {
  const n = snap.nodeCount;
  const reach = (removed: number): boolean[] => {
    const seen = new Array<boolean>(n).fill(false);
    const stack: number[] = [];
    for (const r of snap.rootTarget) if (r !== removed && !seen[r]) { seen[r] = true; stack.push(r); }
    while (stack.length > 0) {
      const v = stack.pop()!;
      for (let e = snap.edgeStart[v]; e < snap.edgeStart[v + 1]; e++) {
        const w = snap.edgeTarget[e];
        if (w !== removed && !seen[w]) { seen[w] = true; stack.push(w); }
      }
    }
    return seen;
  };
  const all = reach(-1);
  const doms: Set<number>[] = [];
  for (let v = 0; v < n; v++) doms.push(new Set());
  for (let d = 0; d < n; d++) {
    const without = reach(d);
    for (let v = 0; v < n; v++) if (v !== d && all[v] && !without[v]) doms[v].add(d);
  }
  // The immediate dominator is the strict dominator that all the others dominate too.
  return doms.map((set, v) => {
    if (!all[v]) return UNREACHABLE;
    for (const d of set) if ([...set].every((o) => o === d || doms[d].has(o))) return d;
    return SUPER_ROOT;
  });
}

test('on 300 random graphs the dominators and retained sizes equal those computed by definition', () => {
  let seed = 12345;
  const rand = (k: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % k;
  };
  for (let round = 0; round < 300; round++) {
    const n = 1 + rand(25);
    const edges: [number, number][] = [];
    const m = rand(n * 3);
    for (let i = 0; i < m; i++) edges.push([rand(n), rand(n)]);
    const roots = Array.from({ length: 1 + rand(3) }, () => rand(n));
    const sizes = Array.from({ length: n }, () => 1 + rand(100));
    const snap = graph(n, edges, roots, sizes);
    const d = computeDominators(snap);
    const expected = bruteForceIdom(snap);
    assert.deepEqual([...d.idom], expected, `round ${round}: ${JSON.stringify({ n, edges, roots })}`);
    // Retained by definition: the sizes of v and everything v dominates.
    for (let v = 0; v < n; v++) {
      let sum = 0;
      for (let w = 0; w < n; w++) {
        let x = w;
        while (x >= 0 && x !== v) x = expected[x];
        if (x === v) sum += sizes[w];
      }
      assert.equal(d.retained[v], expected[v] === UNREACHABLE ? 0 : sum, `round ${round} object ${v}`);
    }
  }
});
