// A heap snapshot: every live object (a node: its type and size, its address when known), every
// reference between objects (an edge, optionally named by the field that holds it) and every root
// (what keeps objects alive from outside the heap: static fields, thread stacks, handles, the
// finalizer queue). Columns in typed arrays, edges in CSR form (each node's edges are the range
// edgeStart[n] .. edgeStart[n+1] of edgeTarget), so 10 M objects stay a few hundred MB and every
// analysis walks them without allocating per object. Snapshots come from .gcdump files
// (structs/formats/gcdump/), clrscope's own files (structs/formats/clrheap/) and the runtime's
// heap walk (structs/heap/heap-walk-reader.ts); the analysis
// (structs/heap/heap-analysis.ts) only reads this shape.

export const ROOT_KINDS = ['static', 'stack', 'handle', 'finalizer', 'other'] as const;
export type RootKind = (typeof ROOT_KINDS)[number];

/**
 * One generation's space after the snapshot's collection, summed over the GC's heaps: its size and
 * its fragmentation, the free space inside it (free-list space plus free objects the allocator
 * does not reuse), from the runtime's GCPerHeapHistory event of that collection.
 */
export interface GenerationStats {
  /** 0, 1, 2, 3 (the large object heap), 4 (the pinned object heap). */
  generation: number;
  name: string;
  sizeBytes: number;
  freeListBytes: number;
  freeObjectBytes: number;
  /** freeListBytes + freeObjectBytes. */
  fragmentationBytes: number;
}

export const GENERATION_NAMES = ['gen0', 'gen1', 'gen2', 'loh', 'poh'] as const;

export interface HeapSnapshot {
  /** Type names; nodeType indexes it. */
  readonly typeNames: readonly string[];
  /** Field names and root names; edgeName and rootName index it. */
  readonly names: readonly string[];
  readonly nodeCount: number;
  readonly nodeType: Int32Array;
  /** Bytes of each object itself (Float64: arrays can pass 4 GiB). */
  readonly nodeSize: Float64Array;
  /** Object addresses, 0 when unknown (Float64 is exact below 2^53; user-space addresses are below 2^48). */
  readonly nodeAddress: Float64Array;
  /** nodeCount + 1 offsets into edgeTarget. */
  readonly edgeStart: Int32Array;
  readonly edgeTarget: Int32Array;
  /** The field holding each edge (an index into names), or -1; undefined when no edge has a name. */
  readonly edgeName: Int32Array | undefined;
  readonly rootKind: Uint8Array;
  /** What the root is called: "static var Ns.Type.Field", "local vars", "StrongHandle"; an index into names. */
  readonly rootName: Int32Array;
  readonly rootTarget: Int32Array;
  /** Per generation, when the snapshot's source says (clrscope's own snapshots do; .gcdump files do not). */
  readonly generations?: readonly GenerationStats[];
}

/** Grows typed columns while a reader adds objects, references and roots in any order. */
export class HeapSnapshotBuilder {
  private readonly types: string[] = [];
  private readonly typeIndex = new Map<string, number>();
  private readonly nameList: string[] = [];
  private readonly nameIndex = new Map<string, number>();
  private nodes = 0;
  private type = new Int32Array(1024);
  private size = new Float64Array(1024);
  private address = new Float64Array(1024);
  /** Edges as they come: (from, to, name), made CSR in build(). */
  private edges = 0;
  private edgeFrom = new Int32Array(1024);
  private edgeTo = new Int32Array(1024);
  private edgeNameOf: Int32Array | undefined;
  private roots = 0;
  private rKind = new Uint8Array(64);
  private rName = new Int32Array(64);
  private rTarget = new Int32Array(64);

  get nodeCount(): number {
    return this.nodes;
  }

  /** The index of a type name, added on first use. */
  typeId(name: string): number {
    let id = this.typeIndex.get(name);
    if (id === undefined) {
      id = this.types.length;
      this.types.push(name);
      this.typeIndex.set(name, id);
    }
    return id;
  }

  nameId(name: string): number {
    let id = this.nameIndex.get(name);
    if (id === undefined) {
      id = this.nameList.length;
      this.nameList.push(name);
      this.nameIndex.set(name, id);
    }
    return id;
  }

  /** Adds an object; returns its node index. */
  addNode(typeId: number, size: number, address = 0): number {
    if (this.nodes === this.type.length) {
      this.type = grow(this.type);
      this.size = grow(this.size);
      this.address = grow(this.address);
    }
    const n = this.nodes++;
    this.type[n] = typeId;
    this.size[n] = size;
    this.address[n] = address;
    return n;
  }

  addEdge(from: number, to: number, field = -1): void {
    if (this.edges === this.edgeFrom.length) {
      this.edgeFrom = grow(this.edgeFrom);
      this.edgeTo = grow(this.edgeTo);
      if (this.edgeNameOf !== undefined) this.edgeNameOf = grow(this.edgeNameOf);
    }
    if (field >= 0 && this.edgeNameOf === undefined) this.edgeNameOf = new Int32Array(this.edgeFrom.length).fill(-1);
    const e = this.edges++;
    this.edgeFrom[e] = from;
    this.edgeTo[e] = to;
    if (this.edgeNameOf !== undefined) this.edgeNameOf[e] = field;
  }

  addRoot(kind: RootKind, name: string, target: number): void {
    if (this.roots === this.rKind.length) {
      this.rKind = grow(this.rKind);
      this.rName = grow(this.rName);
      this.rTarget = grow(this.rTarget);
    }
    const r = this.roots++;
    this.rKind[r] = ROOT_KINDS.indexOf(kind);
    this.rName[r] = this.nameId(name);
    this.rTarget[r] = target;
  }

  /** The snapshot; edges and roots naming a node that was never added are refused. */
  build(): HeapSnapshot {
    const n = this.nodes;
    const edgeStart = new Int32Array(n + 1);
    for (let e = 0; e < this.edges; e++) {
      const from = this.edgeFrom[e];
      const to = this.edgeTo[e];
      if (from < 0 || from >= n || to < 0 || to >= n) throw new RangeError(`reference ${e} names object ${from < 0 || from >= n ? from : to} of ${n}`);
      edgeStart[from + 1]++;
    }
    for (let i = 0; i < n; i++) edgeStart[i + 1] += edgeStart[i];
    const fill = edgeStart.slice(0, n);
    const edgeTarget = new Int32Array(this.edges);
    const edgeName = this.edgeNameOf === undefined ? undefined : new Int32Array(this.edges);
    for (let e = 0; e < this.edges; e++) {
      const at = fill[this.edgeFrom[e]]++;
      edgeTarget[at] = this.edgeTo[e];
      if (edgeName !== undefined && this.edgeNameOf !== undefined) edgeName[at] = this.edgeNameOf[e];
    }
    for (let r = 0; r < this.roots; r++) {
      if (this.rTarget[r] < 0 || this.rTarget[r] >= n) throw new RangeError(`root ${r} names object ${this.rTarget[r]} of ${n}`);
    }
    return {
      typeNames: this.types,
      names: this.nameList,
      nodeCount: n,
      nodeType: this.type.slice(0, n),
      nodeSize: this.size.slice(0, n),
      nodeAddress: this.address.slice(0, n),
      edgeStart,
      edgeTarget,
      edgeName,
      rootKind: this.rKind.slice(0, this.roots),
      rootName: this.rName.slice(0, this.roots),
      rootTarget: this.rTarget.slice(0, this.roots),
    };
  }
}

type Typed = Int32Array | Float64Array | Uint8Array;

function grow<T extends Typed>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2);
  bigger.set(a);
  return bigger;
}
