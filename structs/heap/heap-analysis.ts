// What a leak hunter asks of a snapshot: per type, how many objects, their own bytes and the bytes
// they keep alive (retained, from the dominator tree); why a type's objects are alive (the
// shortest paths from roots, grouped); and what grew between two snapshots.

import { computeDominators, type Dominators } from './dominators.js';
import { DominatorTree } from './dominator-tree.js';
import { ROOT_KINDS, type HeapSnapshot } from './heap-snapshot.js';

export interface TypeStats {
  type: string;
  count: number;
  /** Shallow bytes: the objects' own sizes. */
  bytes: number;
  /**
   * Bytes the type's objects keep alive: the retained bytes of every instance not itself
   * dominated by another instance of the type (so nested ones, as in a linked list, count once).
   */
  retainedBytes: number;
}

export class HeapAnalysis {
  readonly dominators: Dominators;
  private typeStatsCache: TypeStats[] | undefined;
  private paths: { parent: Int32Array; depth: Int32Array; rootOf: Int32Array } | undefined;
  private tree: DominatorTree | undefined;

  constructor(readonly snapshot: HeapSnapshot) {
    this.dominators = computeDominators(snapshot);
  }

  /** The dominator tree's children lists, built on first use. */
  dominatorTree(): DominatorTree {
    this.tree ??= new DominatorTree(this.snapshot.nodeCount, this.dominators);
    return this.tree;
  }

  /** Every type with at least one object, most retained bytes first. Types of the same name are one. */
  typeStats(): TypeStats[] {
    if (this.typeStatsCache !== undefined) return this.typeStatsCache;
    const snap = this.snapshot;
    const T = snap.typeNames.length;
    const count = new Float64Array(T);
    const bytes = new Float64Array(T);
    for (let v = 0; v < snap.nodeCount; v++) {
      count[snap.nodeType[v]]++;
      bytes[snap.nodeType[v]] += snap.nodeSize[v];
    }
    const retained = this.outermostRetained();
    const byName = new Map<string, TypeStats>();
    for (let t = 0; t < T; t++) {
      if (count[t] === 0) continue;
      const name = snap.typeNames[t];
      const row = byName.get(name);
      if (row === undefined) byName.set(name, { type: name, count: count[t], bytes: bytes[t], retainedBytes: retained[t] });
      else {
        row.count += count[t];
        row.bytes += bytes[t];
        row.retainedBytes += retained[t];
      }
    }
    this.typeStatsCache = [...byName.values()].sort((a, b) => b.retainedBytes - a.retainedBytes || b.bytes - a.bytes || (a.type < b.type ? -1 : 1));
    return this.typeStatsCache;
  }

  /**
   * Per type id, the retained bytes of its instances that have no instance of the same type
   * name above them in the dominator tree: a walk of the tree with a count of open instances
   * per type name, iterative, O(N).
   */
  private outermostRetained(): Float64Array {
    const snap = this.snapshot;
    const N = snap.nodeCount;
    const { retained } = this.dominators;
    // Same-name types share one counter.
    const nameOf = new Int32Array(snap.typeNames.length);
    const nameIds = new Map<string, number>();
    snap.typeNames.forEach((name, t) => {
      let id = nameIds.get(name);
      if (id === undefined) nameIds.set(name, (id = nameIds.size));
      nameOf[t] = id;
    });
    const { childStart, children } = this.dominatorTree();
    const open = new Int32Array(nameIds.size);
    const out = new Float64Array(snap.typeNames.length);
    const stack = new Int32Array(N + 1);
    const cursor = new Int32Array(N + 1);
    let top = 0;
    stack[top] = N;
    cursor[top++] = childStart[N];
    while (top > 0) {
      const v = stack[top - 1];
      if (cursor[top - 1] === childStart[v + 1]) {
        top--;
        if (v !== N) open[nameOf[snap.nodeType[v]]]--;
        continue;
      }
      const w = children[cursor[top - 1]++];
      const t = snap.nodeType[w];
      if (open[nameOf[t]] === 0) out[t] += retained[w];
      open[nameOf[t]]++;
      stack[top] = w;
      cursor[top++] = childStart[w];
    }
    return out;
  }

  /**
   * The shortest paths from roots to the objects of a type, grouped by the names along them:
   * `root → Type → .field Type → … → TYPE`, with how many objects each path holds, most first.
   * Breadth-first from every root at once, so each object's path is a shortest one. A path of
   * more than maxHops objects shows the root's own object, `…`, and its last maxHops - 1 hops
   * (so deep structures such as long lists group into one path), and the walk per object is
   * bounded by maxHops: O(N + objects of the type × maxHops).
   */
  pathsTo(typeName: string, maxHops = 16): { path: string[]; count: number }[] {
    const snap = this.snapshot;
    const { parent, depth, rootOf } = this.shortestPaths();
    const wanted = new Set<number>();
    snap.typeNames.forEach((name, t) => {
      if (name === typeName) wanted.add(t);
    });
    const groups = new Map<string, { path: string[]; count: number }>();
    for (let v = 0; v < snap.nodeCount; v++) {
      if (!wanted.has(snap.nodeType[v]) || depth[v] < 0) continue;
      const r = rootOf[v];
      const hops: string[] = [];
      const shown = depth[v] < maxHops ? depth[v] : maxHops - 1;
      let u = v;
      for (let k = 0; k < shown; k++) {
        hops.push(this.hopName(parent[u], u));
        u = parent[u];
      }
      if (shown < depth[v]) hops.push('…');
      hops.push(snap.typeNames[snap.nodeType[snap.rootTarget[r]]], `[${snap.names[snap.rootName[r]]}]`);
      const path = hops.reverse();
      const key = `${snap.rootKind[r]}\u0000${path.join('\u0000')}`;
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { path, count: 1 });
      else group.count++;
    }
    return [...groups.values()].sort((a, b) => b.count - a.count || (a.path.join() < b.path.join() ? -1 : 1));
  }

  /** The object's name on a path: its type, after the field that holds it when the snapshot names fields. */
  private hopName(from: number, to: number): string {
    const snap = this.snapshot;
    const type = snap.typeNames[snap.nodeType[to]];
    if (snap.edgeName === undefined) return type;
    for (let e = snap.edgeStart[from]; e < snap.edgeStart[from + 1]; e++) {
      if (snap.edgeTarget[e] === to && snap.edgeName[e] >= 0) return `.${snap.names[snap.edgeName[e]]} ${type}`;
    }
    return type;
  }

  /**
   * Breadth-first from all roots: each object's predecessor on a shortest path, its depth (hops
   * from the root's own object; -1 when no root reaches it) and the root it was reached from.
   */
  private shortestPaths(): { parent: Int32Array; depth: Int32Array; rootOf: Int32Array } {
    if (this.paths !== undefined) return this.paths;
    const snap = this.snapshot;
    const parent = new Int32Array(snap.nodeCount).fill(-1);
    const depth = new Int32Array(snap.nodeCount).fill(-1);
    const rootOf = new Int32Array(snap.nodeCount).fill(-1);
    const queue = new Int32Array(snap.nodeCount);
    let head = 0;
    let tail = 0;
    // Roots in kind order, so a static field wins over a stack slot holding the same object.
    for (let kind = 0; kind < ROOT_KINDS.length; kind++) {
      for (let r = 0; r < snap.rootTarget.length; r++) {
        const v = snap.rootTarget[r];
        if (snap.rootKind[r] !== kind || depth[v] >= 0) continue;
        depth[v] = 0;
        rootOf[v] = r;
        queue[tail++] = v;
      }
    }
    while (head < tail) {
      const v = queue[head++];
      for (let e = snap.edgeStart[v]; e < snap.edgeStart[v + 1]; e++) {
        const w = snap.edgeTarget[e];
        if (depth[w] >= 0) continue;
        parent[w] = v;
        depth[w] = depth[v] + 1;
        rootOf[w] = rootOf[v];
        queue[tail++] = w;
      }
    }
    this.paths = { parent, depth, rootOf };
    return this.paths;
  }
}



export interface TypeDiff {
  type: string;
  count: number;
  countDelta: number;
  bytes: number;
  bytesDelta: number;
  retainedBytes: number;
  retainedDelta: number;
}

/** Per type name, after minus before; types that changed, the most grown in count first. */
export function diffTypeStats(before: readonly TypeStats[], after: readonly TypeStats[]): TypeDiff[] {
  const old = new Map(before.map((t) => [t.type, t]));
  const rows: TypeDiff[] = [];
  const seen = new Set<string>();
  for (const t of after) {
    seen.add(t.type);
    const b = old.get(t.type);
    rows.push({
      type: t.type, count: t.count, countDelta: t.count - (b?.count ?? 0), bytes: t.bytes, bytesDelta: t.bytes - (b?.bytes ?? 0),
      retainedBytes: t.retainedBytes, retainedDelta: t.retainedBytes - (b?.retainedBytes ?? 0),
    });
  }
  for (const b of before) {
    if (seen.has(b.type)) continue;
    rows.push({ type: b.type, count: 0, countDelta: -b.count, bytes: 0, bytesDelta: -b.bytes, retainedBytes: 0, retainedDelta: -b.retainedBytes });
  }
  return rows
    .filter((r) => r.countDelta !== 0 || r.bytesDelta !== 0 || r.retainedDelta !== 0)
    .sort((a, b) => b.countDelta - a.countDelta || b.retainedDelta - a.retainedDelta || (a.type < b.type ? -1 : 1));
}

export interface PathDiff {
  path: string[];
  count: number;
  countDelta: number;
}

/** Per path from roots (as pathsTo groups them), after minus before: the paths that hold a type's growth, most grown first. */
export function diffPaths(before: readonly { path: string[]; count: number }[], after: readonly { path: string[]; count: number }[]): PathDiff[] {
  const key = (p: readonly string[]): string => p.join('\u0000');
  const old = new Map(before.map((p) => [key(p.path), p.count]));
  const rows: PathDiff[] = after.map((p) => ({ path: p.path, count: p.count, countDelta: p.count - (old.get(key(p.path)) ?? 0) }));
  const seen = new Set(after.map((p) => key(p.path)));
  for (const p of before) if (!seen.has(key(p.path))) rows.push({ path: p.path, count: 0, countDelta: -p.count });
  return rows.filter((r) => r.countDelta !== 0).sort((a, b) => b.countDelta - a.countDelta || (key(a.path) < key(b.path) ? -1 : 1));
}
