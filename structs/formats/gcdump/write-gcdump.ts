// Writes a HeapSnapshot as a .gcdump, so a snapshot clrscope took opens in PerfView, Visual
// Studio and `dotnet-gcdump report`. The layout is the one read-gcdump.ts reads (facts from
// microsoft/perfview: src/HeapDump/GCHeapDump.cs, src/MemoryGraph/graph.cs, MemoryGraph.cs and
// src/FastSerialization/FastSerialization.cs), written as dotnet-gcdump writes it: a GCHeapDump
// (version 10, readers from 8) whose graph is a Graphs.MemoryGraph (version 1, readers from 0,
// so no deferred-type region).
//
// The graph's roots are pseudo-objects (address 0, bracketed type names) under one root node, as
// dotnet-gcdump groups them and read-gcdump.ts reads them back: "[.NET Roots]" → "[static vars]"
// → "[static var Ns.Type.Field]" → object; "[local vars]" → object; "[other roots]" →
// "[strong Handles]" (each handle group) → object. Pseudo-objects come first, objects after them
// in the snapshot's order, each record's children as deltas from its own index.
//
// What .gcdump has no place for (field names of references, each generation's size and
// fragmentation) stays in .clrheap.

import { joined } from '../../wire/joined-bytes.js';
import type { HeapSnapshot } from '../../heap/heap-snapshot.js';
import { FsWriter } from './fs-writer.js';
import { grownBytes } from '../../wire/grown-bytes.js';
import { SIGNATURE } from './fast-serialization.js';

/** What the file says about where the snapshot came from. */
export interface GcdumpInfo {
  pid?: number;
  takenAt?: string;
}

/** A .gcdump's stream labels are 4-byte offsets. */
const MAX_FILE = 0x7fffffff;
/** .NET's DateTime ticks (100 ns since 0001-01-01) at the Unix epoch. */
const UNIX_EPOCH_TICKS = 621355968000000000n;

export class GcdumpWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GcdumpWriteError';
  }
}

/** A pseudo-object: its bracketed type name and its children (pseudo indexes below `objects`, else P + node). */
interface Pseudo {
  name: string;
  children: number[];
}

/** The root tree over the snapshot's roots; objects are numbered from `first` (the pseudo count). */
function rootTree(snap: HeapSnapshot): { pseudo: Pseudo[]; first: number } {
  const pseudo: Pseudo[] = [{ name: '[.NET Roots]', children: [] }];
  const byPath = new Map<string, number>();
  const group = (parent: number, name: string): number => {
    const key = `${parent}\u0000${name}`;
    let at = byPath.get(key);
    if (at === undefined) {
      at = pseudo.length;
      pseudo.push({ name: `[${name}]`, children: [] });
      pseudo[parent].children.push(at);
      byPath.set(key, at);
    }
    return at;
  };
  const objectRefs: [number, number][] = [];
  for (let r = 0; r < snap.rootTarget.length; r++) {
    const name = snap.names[snap.rootName[r]] ?? 'other roots';
    let holder: number;
    switch (snap.rootKind[r]) {
      case 0: // static
        holder = group(group(0, 'static vars'), name);
        break;
      case 1: // stack
        holder = group(0, name);
        break;
      default:
        holder = name === 'COM/WinRT Objects' ? group(0, name) : group(group(0, 'other roots'), name);
    }
    objectRefs.push([holder, snap.rootTarget[r]]);
  }
  const first = pseudo.length;
  for (const [holder, target] of objectRefs) pseudo[holder].children.push(first + target);
  return { pseudo, first };
}

/** Appends a compressed int (big-endian 7-bit groups, the high bit saying more follow) to `out` at `at`; returns the new end. */
function compressed(out: Uint8Array, at: number, value: number): number {
  if ((value << 25) >> 25 === value) {
    out[at] = value & 0x7f;
    return at + 1;
  }
  if ((value << 18) >> 18 === value) {
    out[at] = ((value >> 7) & 0x7f) | 0x80;
    out[at + 1] = value & 0x7f;
    return at + 2;
  }
  if ((value << 11) >> 11 === value) {
    out[at] = ((value >> 14) & 0x7f) | 0x80;
    out[at + 1] = ((value >> 7) & 0x7f) | 0x80;
    out[at + 2] = value & 0x7f;
    return at + 3;
  }
  let n = at;
  if ((value << 4) >> 4 !== value) out[n++] = ((value >> 28) & 0x7f) | 0x80;
  out[n++] = ((value >> 21) & 0x7f) | 0x80;
  out[n++] = ((value >> 14) & 0x7f) | 0x80;
  out[n++] = ((value >> 7) & 0x7f) | 0x80;
  out[n++] = value & 0x7f;
  return n;
}

/**
 * The .gcdump's bytes as parts, in order; the large ones (node offsets, records, addresses) are
 * each built once, never joined into one array.
 */
export function gcdumpParts(snap: HeapSnapshot, info: GcdumpInfo = {}): Uint8Array[] {
  const N = snap.nodeCount;
  const { pseudo, first } = rootTree(snap);
  const total = first + N;
  if (total > 0x7ffffffe) throw new GcdumpWriteError(`a .gcdump holds at most 2,147,483,646 objects, not ${total}`);
  // Types: UNDEFINED first (as the graph's own writer has it), the pseudo-objects' own, then the snapshot's.
  const typeNames: string[] = ['UNDEFINED', ...pseudo.map((p) => p.name), ...snap.typeNames];
  const typeSizes = new Int32Array(typeNames.length);
  const objectType = 1 + pseudo.length;
  // A type's size is its smallest object's (every object's, for all but arrays and strings), what
  // `dotnet-gcdump report` shows as the type's size; other sizes are written in the record.
  typeSizes.fill(0x7fffffff, objectType);
  let totalSize = 0;
  for (let v = 0; v < N; v++) {
    const t = objectType + snap.nodeType[v];
    const size = Math.min(snap.nodeSize[v], 0x7fffffff);
    totalSize += size;
    if (size < typeSizes[t]) typeSizes[t] = size;
  }

  const head = new FsWriter();
  head.i32(SIGNATURE.length);
  for (let i = 0; i < SIGNATURE.length; i++) head.u8(SIGNATURE.charCodeAt(i));
  head.beginObject('GCHeapDump', 10, 8);
  head.beginObject('Graphs.MemoryGraph', 1, 0);
  head.i64(totalSize);
  head.i32(0); // the root node: "[.NET Roots]"
  head.i32(typeNames.length);
  for (let t = 0; t < typeNames.length; t++) {
    head.string(typeNames[t]);
    head.i32(typeSizes[t]);
    head.string(null); // the module: not known to a snapshot
  }
  head.i32(total);

  // The records: type and size, child count, children as deltas.
  const E = snap.edgeTarget.length;
  let children = E;
  for (const p of pseudo) children += p.children.length;
  let blob: Uint8Array = new Uint8Array(Math.max(64, total * 3 + children * 2));
  const labels = new Int32Array(total);
  let at = 0;
  const ensure = (n: number): void => {
    if (at + n <= blob.length) return;
    if (at + n > MAX_FILE) throw new GcdumpWriteError('the snapshot is too large for a .gcdump (its object records pass 2 GiB)');
    blob = grownBytes(blob, at, at + n);
  };
  for (let v = 0; v < pseudo.length; v++) {
    const kids = pseudo[v].children;
    ensure(10 + 5 * kids.length);
    labels[v] = at;
    at = compressed(blob, at, (1 + v) << 1); // the pseudo type's size, 0, is its own
    at = compressed(blob, at, kids.length);
    for (const w of kids) at = compressed(blob, at, w - v);
  }
  for (let v = 0; v < N; v++) {
    const from = snap.edgeStart[v];
    const to = snap.edgeStart[v + 1];
    ensure(15 + 5 * (to - from));
    const t = objectType + snap.nodeType[v];
    const size = Math.min(snap.nodeSize[v], 0x7fffffff);
    labels[first + v] = at;
    if (size === typeSizes[t]) at = compressed(blob, at, t << 1);
    else {
      at = compressed(blob, at, (t << 1) | 1);
      at = compressed(blob, at, size);
    }
    at = compressed(blob, at, to - from);
    for (let e = from; e < to; e++) at = compressed(blob, at, snap.edgeTarget[e] - v);
  }
  const labelBytes = new Uint8Array(labels.buffer);

  const blobHead = new FsWriter();
  blobHead.i32(at);
  const addressHead = new FsWriter();
  addressHead.i32(total);
  // Addresses as u64: pseudo-objects 0, objects theirs (below 2^53, so exact as doubles).
  const addresses = new Uint32Array(2 * total);
  for (let v = 0; v < N; v++) {
    const a = snap.nodeAddress[v];
    addresses[2 * (first + v)] = a % 4294967296;
    addresses[2 * (first + v) + 1] = Math.floor(a / 4294967296);
  }
  const addressBytes = new Uint8Array(addresses.buffer);

  const before = head.label + labelBytes.length + blobHead.label + at + addressHead.label + addressBytes.length;
  const tail = new FsWriter(before);
  tail.u8(8); // the graph's Is64Bit, tagged
  tail.u8(1);
  tail.endObject(); // the graph
  tail.u8(1); // GCHeapDump's own Is64Bit
  tail.f32(1); // AverageCountMultiplier: every object, not a sample
  tail.f32(1); // AverageSizeMultiplier
  tail.u8(1); // JSHeapInfo: null
  tail.u8(1); // DotNetHeapInfo: null
  tail.string(null); // the collection log
  const taken = info.takenAt === undefined ? NaN : Date.parse(info.takenAt);
  tail.i64(Number.isFinite(taken) ? UNIX_EPOCH_TICKS + BigInt(Math.round(taken)) * 10000n : 0n);
  tail.string(null); // machine name
  tail.string(null); // process name
  tail.i32(info.pid ?? 0);
  tail.i64(0); // total commit: not known
  tail.i64(0); // working set: not known
  tail.i32(0); // no count multipliers by type
  // The interop information, tagged: a skippable region (a forward reference to its end) holding null.
  tail.u8(12);
  tail.i32(0);
  tail.u8(1);
  const regionEnd = tail.label;
  tail.u8(13); // the creation tool, tagged
  tail.string('clrscope');
  tail.endObject(); // the GCHeapDump
  tail.endObject(); // the stream's unbalanced end of objects
  const table = tail.label;
  tail.i32(1);
  tail.i32(regionEnd);
  const trailer = tail.label;
  tail.i32(table);
  tail.i32(trailer);
  if (tail.label > MAX_FILE) throw new GcdumpWriteError(`the snapshot is too large for a .gcdump (${tail.label} bytes; its offsets are 32-bit)`);
  return [head.bytes(), labelBytes, blobHead.bytes(), blob.subarray(0, at), addressHead.bytes(), addressBytes, tail.bytes()];
}

/** The whole .gcdump in one array (tests and small snapshots; files are written from the parts). */
export function writeGcdump(snap: HeapSnapshot, info: GcdumpInfo = {}): Uint8Array {
  return joined(gcdumpParts(snap, info));
}
