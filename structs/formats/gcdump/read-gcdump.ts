// Reads a .gcdump file (dotnet-gcdump, PerfView) into a HeapSnapshot. Layout, from
// microsoft/perfview (src/HeapDump/GCHeapDump.cs, src/MemoryGraph/graph.cs and MemoryGraph.cs)
// and dotnet/diagnostics (src/Tools/dotnet-gcdump/DotNetHeapDump/): facts only.
//
// The entry object is a GCHeapDump whose first field is a Graphs.MemoryGraph:
//   i64 total size, i32 root node index,
//   i32 type count, per type: string name, i32 size, string module,
//   i32 node count, per node: i32 offset of its record in the blob,
//   i32 blob length, the blob,
//   (graph version >= 1 readers only: a skippable region of deferred types),
//   i32 address count, per node: u64 address, then a tagged Is64Bit byte.
// A node's record: compressed int (type << 1 | explicit-size bit), the size when the bit is set
// (else the type's size), compressed child count, then each child as a compressed delta from
// the node's own index. Compressed ints are big-endian groups of 7 bits, the high bit saying
// another byte follows, the first group sign-extended.
// The graph's roots are pseudo-objects (address 0, names in brackets) under the root node:
// "[static vars]" → "[static var Ns.Type.Field]" → object, "[local vars]", "[other roots]" →
// "[StrongHandle]", "[FinalizerQueue]", ... They become HeapSnapshot roots; objects under them.
//
// Hostile files: every count is checked against the bytes left before anything is allocated for
// it, records must lie inside the blob, and the references decoded may not outnumber the blob's
// bytes (each takes one at least), so time and memory stay linear in the file's size.

import { HeapSnapshotBuilder, type HeapSnapshot, type RootKind } from '../../heap/heap-snapshot.js';
import { FsCursor, GcdumpFormatError, SIGNATURE } from './fast-serialization.js';

export { GcdumpFormatError } from './fast-serialization.js';

/** Whether the first bytes are a FastSerialization stream (a .gcdump's signature). */
export function isGcdump(head: Uint8Array): boolean {
  if (head.length < 4 + SIGNATURE.length) return false;
  if (head[0] !== SIGNATURE.length || head[1] !== 0 || head[2] !== 0 || head[3] !== 0) return false;
  for (let i = 0; i < SIGNATURE.length; i++) if (head[4 + i] !== SIGNATURE.charCodeAt(i)) return false;
  return true;
}

interface RawGraph {
  rootIndex: number;
  typeNames: string[];
  typeSizes: Int32Array;
  labels: Int32Array;
  blob: Uint8Array;
  addresses: Float64Array;
}

export function readGcdump(bytes: Uint8Array): HeapSnapshot {
  if (!isGcdump(bytes)) {
    throw new GcdumpFormatError(`not a .gcdump file: it does not start with the "${SIGNATURE}" signature`, 0);
  }
  const c = new FsCursor(bytes);
  c.pos = 4 + SIGNATURE.length;
  c.checkEnd();
  const entry = c.beginObject('the heap dump');
  if (entry.fullName !== 'GCHeapDump') throw new GcdumpFormatError(`not a heap dump: the file holds a ${entry.fullName || 'nameless object'}`, c.pos);
  if (entry.version < 9) throw new GcdumpFormatError(`a heap dump of format version ${entry.version}; clrscope reads version 9 and later (dotnet-gcdump's and PerfView's since 2019)`, c.pos);
  const raw = readMemoryGraph(c);
  return toSnapshot(raw);
}

function readMemoryGraph(c: FsCursor): RawGraph {
  const type = c.beginObject('the object graph');
  if (type.fullName !== 'Graphs.MemoryGraph') throw new GcdumpFormatError(`expected the object graph (Graphs.MemoryGraph) but found ${type.fullName || 'a nameless object'} at byte ${c.pos}`, c.pos);
  c.i64('the graph size');
  const rootIndex = c.i32('the root index');
  const typeCount = c.count('the type table', 12);
  const typeNames: string[] = [];
  const typeSizes = new Int32Array(typeCount);
  for (let t = 0; t < typeCount; t++) {
    typeNames.push(c.string('a type name') ?? '');
    typeSizes[t] = c.i32('a type size');
    c.string('a module name');
  }
  const nodeCount = c.count('the node table', 4);
  const labels = new Int32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) labels[v] = c.i32('the node table');
  const blobLength = c.count('the node records', 1);
  const blob = c.bytes.subarray(c.pos, c.pos + blobLength);
  c.pos += blobLength;
  if (type.minimumReaderVersion >= 1) {
    // The deferred-type region: a forward reference to its end, which the table at the end of the stream resolves.
    c.expectTag(3, 'the deferred-type region');
    const end = c.forwardTarget(c.i32('the deferred-type region'));
    if (end < c.pos) c.fail('a deferred-type region that ends before it starts');
    c.pos = end;
  }
  const addressCount = c.count('the address table', 8);
  if (addressCount !== nodeCount) c.fail(`an address table of ${addressCount} entries for ${nodeCount} nodes`);
  const addresses = new Float64Array(addressCount);
  for (let v = 0; v < addressCount; v++) addresses[v] = c.u64('the address table');
  if (rootIndex < 0 || rootIndex >= nodeCount) c.fail(`a root node ${rootIndex} outside the ${nodeCount} nodes`);
  return { rootIndex, typeNames, typeSizes, labels, blob, addresses };
}

/** The decoded node records: type, size and children (CSR) of every node in the file. */
function decodeNodes(g: RawGraph): { type: Int32Array; size: Float64Array; start: Int32Array; child: Int32Array } {
  const N = g.labels.length;
  const blob = g.blob;
  const type = new Int32Array(N);
  const size = new Float64Array(N);
  const start = new Int32Array(N + 1);
  // Each reference takes at least one byte of the blob, so the blob's length bounds them.
  let child = new Int32Array(Math.min(blob.length, 1 << 20));
  let edges = 0;
  let pos = 0;
  const fail = (v: number, what: string): never => {
    throw new GcdumpFormatError(`object ${v}'s record ${what}`, 0);
  };
  const compressed = (v: number): number => {
    if (pos >= blob.length) fail(v, 'runs past the end of the node records');
    let b = blob[pos++];
    let value = (b << 25) >> 25;
    for (let k = 0; k < 4 && (b & 0x80) !== 0; k++) {
      if (pos >= blob.length) fail(v, 'runs past the end of the node records');
      b = blob[pos++];
      value = (value << 7) + (k === 3 ? b : b & 0x7f);
    }
    return value;
  };
  for (let v = 0; v < N; v++) {
    pos = g.labels[v];
    if (pos < 0 || pos >= blob.length) fail(v, `starts at ${pos}, outside the ${blob.length} bytes of node records`);
    const typeAndSize = compressed(v);
    const t = typeAndSize >> 1;
    if (typeAndSize < 0 || t >= g.typeSizes.length) fail(v, `names type ${t} of ${g.typeSizes.length}`);
    type[v] = t;
    size[v] = (typeAndSize & 1) !== 0 ? compressed(v) : Math.max(0, g.typeSizes[t]);
    if (size[v] < 0) fail(v, `has a negative size ${size[v]}`);
    const n = compressed(v);
    if (n < 0 || edges + n > blob.length) fail(v, `claims ${n} references, more than the node records can hold`);
    if (edges + n > child.length) {
      const bigger = new Int32Array(Math.min(blob.length, Math.max(child.length * 2, edges + n)));
      bigger.set(child.subarray(0, edges));
      child = bigger;
    }
    for (let k = 0; k < n; k++) {
      const w = v + compressed(v);
      if (w < 0 || w >= N) fail(v, `refers to object ${w} of ${N}`);
      child[edges++] = w;
    }
    start[v + 1] = edges;
  }
  return { type, size, start, child: child.subarray(0, edges) };
}

const SIZE_BUCKET = / \(Bytes > \d+K\)$/;

function rootKindOf(path: readonly string[]): RootKind {
  for (let i = path.length - 1; i >= 0; i--) {
    const name = path[i];
    if (name.startsWith('static var') || name === 'static vars' || name === 'thread static vars') return 'static';
    if (name === 'local vars' || name === 'Pinned local vars' || name === 'Stack') return 'stack';
    if (/^finaliz/i.test(name)) return 'finalizer';
    if (/Handle/i.test(name)) return 'handle';
  }
  return 'other';
}

function toSnapshot(g: RawGraph): HeapSnapshot {
  const nodes = decodeNodes(g);
  const N = g.labels.length;
  const isBracketed = g.typeNames.map((name) => name.startsWith('[') && name.endsWith(']'));
  const pseudo = (v: number): boolean => g.addresses[v] === 0 && isBracketed[nodes.type[v]];
  // An object referenced but never described (its events were lost) points at the writer's
  // placeholder record, type "UNDEFINED" of size 0: no object to count, so no node.
  const undefinedType = g.typeNames.findIndex((name, t) => name === 'UNDEFINED' && g.typeSizes[t] === 0);
  // Walk the pseudo-objects from the root node; their object children are the roots.
  const b = new HeapSnapshotBuilder();
  const index = new Int32Array(N).fill(-1);
  const isPseudo = new Uint8Array(N);
  for (let v = 0; v < N; v++) isPseudo[v] = pseudo(v) ? 1 : 0;
  for (let v = 0; v < N; v++) {
    if (isPseudo[v] === 1 || v === g.rootIndex || nodes.type[v] === undefinedType) continue;
    index[v] = b.addNode(b.typeId(g.typeNames[nodes.type[v]].replace(SIZE_BUCKET, '')), nodes.size[v], g.addresses[v]);
  }
  for (let v = 0; v < N; v++) {
    if (index[v] < 0) continue;
    for (let e = nodes.start[v]; e < nodes.start[v + 1]; e++) {
      const w = index[nodes.child[e]];
      if (w >= 0) b.addEdge(index[v], w);
    }
  }
  const bare = (v: number): string => g.typeNames[nodes.type[v]].slice(1, -1);
  const seen = new Uint8Array(N);
  const stack: { v: number; path: string[] }[] = [{ v: g.rootIndex, path: [] }];
  seen[g.rootIndex] = 1;
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    const here = v === g.rootIndex ? path : [...path, bare(v)];
    for (let e = nodes.start[v]; e < nodes.start[v + 1]; e++) {
      const w = nodes.child[e];
      if (index[w] >= 0) {
        b.addRoot(rootKindOf(here), here.at(-1) ?? 'root', index[w]);
      } else if (seen[w] === 0 && isPseudo[w] === 1) {
        seen[w] = 1;
        stack.push({ v: w, path: here });
      }
    }
  }
  return b.build();
}
