// Builds a HeapSnapshot from the runtime's heap walk as an EventPipe session streams it: the
// nettrace blocks (structs/formats/nettrace/object-reader.ts frames them) carry BulkType (type
// names by type id), GCBulkNode (each object: address, size, type id, how many references it
// holds), GCBulkEdge (the references, in the nodes' order: node i's are the next EdgeCount
// edges), GCBulkRootEdge / GCBulkRootStaticVar / the ConditionalWeakTable edges (the roots), and
// GCPerHeapHistory (each generation's size and free space after the collection). Only the events
// of the first blocking gen-2 collection that walks the heap count, as dotnet-gcdump reads them.
//
// Cost: per object 8 (address) + 8 (size) + 4 (type) + 4 (edge offset) bytes, per reference 8
// (its target's address until every object is known), then a hash of addresses (12 bytes a slot,
// 1.5 to 3 slots an object) to turn targets into indexes; nothing is allocated per object.

import { AddressIndex } from './address-index.js';
import { forEachEvent, readMetadataRecord, type EventHeader } from '../formats/nettrace/block-readers.js';
import { BlockName, Provider } from '../formats/nettrace/constants.js';
import type { ObjectSink } from '../formats/nettrace/object-reader.js';
import type { SpanReader } from '../formats/nettrace/span-reader.js';
import {
  BULK_TYPE_HEADER, cwtValueBytes, displayTypeName, edgeValueBytes, GC_TYPE_NON_CONCURRENT, GcRootFlag, GcRootKind, HeapWalkEvent,
  INDEXED_BULK_HEADER, nodeValueBytes, PerHeapEntry, rootEdgeValueBytes, STATIC_VAR_HEADER, TYPE_FLAG_ARRAY,
} from './heap-walk-events.js';
import { GENERATION_NAMES, ROOT_KINDS, type GenerationStats, type HeapSnapshot, type RootKind } from './heap-snapshot.js';

/** A heap walk that cannot become a snapshot; the message is one sentence. */
export class HeapWalkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeapWalkError';
  }
}

const TWO_32 = 4294967296;

class F64Column {
  data: Float64Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(Math.max(1024, this.data.length * 2));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
}

class I32Column {
  data: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(Math.max(1024, this.data.length * 2));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
}

/** How the heap walk went, for the command's summary and the tests. */
export interface HeapWalkStats {
  /** The collection that walked the heap (GCStart's Count). */
  gcNumber: number;
  objects: number;
  references: number;
  /** References to addresses no object of the walk has (objects the walk did not describe); left out. */
  unresolvedReferences: number;
  roots: number;
  /** Roots at addresses no object has (interior pointers, objects outside the walk); left out. */
  unresolvedRoots: number;
  /** Bytes of nettrace read. */
  eventBytes: number;
}

type State = 'waiting' | 'walking' | 'done';

export class HeapWalkReader implements ObjectSink {
  pointerSize = 8;
  processId = 0;
  /** Called once, when the walking collection's GCEnd arrives. */
  onWalkEnd: (() => void) | undefined;
  /** Called when the walking collection starts (its GCStart). */
  onWalkStart: ((gcNumber: number) => void) | undefined;
  eventBytes = 0;

  private readonly kinds = new Map<number, { event: number; version: number }>();
  private lastMetadataId = -1;
  private lastEvent = -1;
  private lastVersion = 0;
  private state: State = 'waiting';
  private gcNumber = -1;

  private readonly typeNameById: Map<number, string>;
  private readonly typeIndexById = new Map<number, number>();
  private readonly typeIds: number[] = [];
  private lastTypeId = -1;
  private lastTypeIndex = -1;

  private address = new F64Column(1 << 16);
  private size = new F64Column(1 << 16);
  private type = new I32Column(1 << 16);
  /** Cumulative reference counts: node i's references are edgeEnd[i-1] .. edgeEnd[i]. */
  private edgeEnd = new I32Column(1 << 16);
  private declaredEdges = 0;
  private edgeTargets = new F64Column(1 << 16);
  private nextNodeIndex = 0;
  private nextEdgeIndex = 0;
  private lostNodeEvents = 0;
  private lostEdgeEvents = 0;
  private cutAtBudget = false;

  private readonly rootKind: number[] = [];
  private readonly rootName: string[] = [];
  private readonly rootAddress: number[] = [];
  /** Static roots name their type, known only once its BulkType arrived: (root index, type id, field). */
  private readonly staticNames: { root: number; typeId: number; field: string }[] = [];
  private readonly generationSums: number[][] = [];

  /**
   * `knownTypeNames`: the names (by type id, the method table's address) an earlier walk of the same
   * process learned. The runtime sends a type's name once per process for as long as some session
   * keeps its provider on (clrscope's profiler does), so a second walk of a profiled process names
   * only types new since the first; the rest come from here.
   */
  constructor(knownTypeNames?: ReadonlyMap<number, string>, private readonly maxObjects = Number.POSITIVE_INFINITY) {
    this.typeNameById = new Map(knownTypeNames);
  }

  /** The walk described more objects than `maxObjects`: the snapshot keeps the first ones and their references. */
  get overBudget(): boolean {
    return this.cutAtBudget;
  }

  /** Every type name known after the walk, by type id: what the next walk of the same process is given. */
  get typeNames(): ReadonlyMap<number, string> {
    return this.typeNameById;
  }

  get walkState(): State {
    return this.state;
  }

  get objectsSoFar(): number {
    return this.address.length;
  }

  onTrace(fields: Uint8Array): void {
    const v = new DataView(fields.buffer, fields.byteOffset, fields.byteLength);
    // SYSTEMTIME (16), sync QPC (8), QPC frequency (8), then i32 pointer size, i32 process id.
    if (fields.byteLength >= 40) {
      this.pointerSize = v.getInt32(32, true);
      this.processId = v.getInt32(36, true);
    }
    if (this.pointerSize !== 8 && this.pointerSize !== 4) throw new HeapWalkError(`the trace names a pointer size of ${this.pointerSize} bytes`);
  }

  onBlock(name: string, contents: Uint8Array, offset: number): void {
    this.eventBytes += contents.length;
    if (name === BlockName.Metadata) {
      forEachEvent(contents, offset, `MetadataBlock at byte ${offset}`, (_h, r) => {
        const m = readMetadataRecord(r);
        if (m.provider === Provider.Runtime) this.kinds.set(m.metadataId, { event: m.eventId, version: m.version });
      });
    } else if (name === BlockName.Event) {
      forEachEvent(contents, offset, `EventBlock at byte ${offset}`, (h, r, end) => this.onEvent(h, r, end));
    }
  }

  private onEvent(h: EventHeader, r: SpanReader, end: number): void {
    if (h.metadataId !== this.lastMetadataId) {
      this.lastMetadataId = h.metadataId;
      const k = this.kinds.get(h.metadataId);
      this.lastEvent = k?.event ?? -1;
      this.lastVersion = k?.version ?? 0;
    }
    const v = r.view;
    const at = r.pos;
    const size = end - at;
    switch (this.lastEvent) {
      case HeapWalkEvent.GCStart:
        // Count, Depth, Reason, Type (v1+).
        if (this.state === 'waiting' && this.lastVersion >= 1 && size >= 16 && v.getUint32(at + 4, true) === 2 && v.getUint32(at + 12, true) === GC_TYPE_NON_CONCURRENT) {
          this.state = 'walking';
          this.gcNumber = v.getUint32(at, true);
          this.onWalkStart?.(this.gcNumber);
        }
        break;
      case HeapWalkEvent.GCEnd:
        if (this.state === 'walking' && size >= 4 && v.getUint32(at, true) === this.gcNumber) {
          // A gen-2 collection without a walk (the program's own, say) is not the one asked for.
          if (this.address.length === 0) this.state = 'waiting';
          else {
            this.state = 'done';
            this.onWalkEnd?.();
          }
        }
        break;
      case HeapWalkEvent.BulkType:
        this.readTypes(r, end);
        break;
      case HeapWalkEvent.GCBulkNode:
        if (this.state === 'walking') this.readNodes(v, at, size);
        break;
      case HeapWalkEvent.GCBulkEdge:
        if (this.state === 'walking') this.readEdges(v, at, size);
        break;
      case HeapWalkEvent.GCBulkRootEdge:
        if (this.state === 'walking') this.readRootEdges(v, at, size);
        break;
      case HeapWalkEvent.GCBulkRootConditionalWeakTableElementEdge:
        if (this.state === 'walking') this.readCwtEdges(v, at, size);
        break;
      case HeapWalkEvent.GCBulkRootStaticVar:
        if (this.state === 'walking') this.readStaticVars(r, end);
        break;
      case HeapWalkEvent.GCPerHeapHistory:
        if (this.state === 'walking' && this.lastVersion >= 3) this.readPerHeapHistory(v, at, size);
        break;
    }
  }

  private ptr(v: DataView, at: number): number {
    return this.pointerSize === 8 ? v.getUint32(at, true) + v.getUint32(at + 4, true) * TWO_32 : v.getUint32(at, true);
  }

  /** u32 Index, u32 Count, u16 ClrInstanceID; the count of values that fit in the payload. */
  private indexed(v: DataView, at: number, size: number, valueBytes: number): { index: number; count: number } {
    if (size < INDEXED_BULK_HEADER) return { index: -1, count: 0 };
    const index = v.getUint32(at, true);
    const count = Math.min(v.getUint32(at + 4, true), Math.floor((size - INDEXED_BULK_HEADER) / valueBytes));
    return { index, count };
  }

  private readNodes(v: DataView, at: number, size: number): void {
    const bytes = nodeValueBytes(this.pointerSize);
    const { index, count } = this.indexed(v, at, size, bytes);
    if (index !== this.nextNodeIndex) this.lostNodeEvents += Math.max(1, index - this.nextNodeIndex);
    this.nextNodeIndex = index + 1;
    const ps = this.pointerSize;
    let p = at + INDEXED_BULK_HEADER;
    for (let i = 0; i < count; i++, p += bytes) {
      if (this.address.length >= this.maxObjects) {
        this.cutAtBudget = true;
        return;
      }
      const typeId = v.getUint32(p + ps + 8, true) + v.getUint32(p + ps + 12, true) * TWO_32;
      const edges = v.getUint32(p + ps + 16, true) + v.getUint32(p + ps + 20, true) * TWO_32;
      this.address.push(this.ptr(v, p));
      this.size.push(v.getUint32(p + ps, true) + v.getUint32(p + ps + 4, true) * TWO_32);
      this.type.push(this.typeIndex(typeId));
      this.declaredEdges += edges;
      if (this.declaredEdges > 0x7fffffff) throw new HeapWalkError('the heap walk declares more than 2^31 references, more than clrscope holds');
      this.edgeEnd.push(this.declaredEdges);
    }
  }

  private typeIndex(typeId: number): number {
    if (typeId === this.lastTypeId) return this.lastTypeIndex;
    let t = this.typeIndexById.get(typeId);
    if (t === undefined) {
      t = this.typeIds.length;
      this.typeIds.push(typeId);
      this.typeIndexById.set(typeId, t);
    }
    this.lastTypeId = typeId;
    this.lastTypeIndex = t;
    return t;
  }

  private readEdges(v: DataView, at: number, size: number): void {
    const bytes = edgeValueBytes(this.pointerSize);
    const { index, count } = this.indexed(v, at, size, bytes);
    if (index !== this.nextEdgeIndex) this.lostEdgeEvents += Math.max(1, index - this.nextEdgeIndex);
    this.nextEdgeIndex = index + 1;
    let p = at + INDEXED_BULK_HEADER;
    // Past the budget, only the references of the objects kept (they come first, in the nodes' order).
    const room = this.cutAtBudget ? Math.max(0, this.declaredEdges - this.edgeTargets.length) : count;
    for (let i = 0; i < count && i < room; i++, p += bytes) this.edgeTargets.push(this.ptr(v, p));
  }

  private addRoot(kind: RootKind, name: string, address: number): number {
    this.rootKind.push(ROOT_KINDS.indexOf(kind));
    this.rootName.push(name);
    this.rootAddress.push(address);
    return this.rootKind.length - 1;
  }

  private readRootEdges(v: DataView, at: number, size: number): void {
    const ps = this.pointerSize;
    const bytes = rootEdgeValueBytes(ps);
    const { count } = this.indexed(v, at, size, bytes);
    let p = at + INDEXED_BULK_HEADER;
    for (let i = 0; i < count; i++, p += bytes) {
      const address = this.ptr(v, p);
      const kind = v.getUint8(p + ps);
      const flags = v.getUint32(p + ps + 1, true);
      // A weak reference keeps nothing alive.
      if ((flags & GcRootFlag.WeakRef) !== 0 || address === 0) continue;
      // Named as dotnet-gcdump names its root groups, so paths from either read alike.
      if (kind === GcRootKind.Stack) this.addRoot('stack', 'local vars', address);
      else if ((flags & GcRootFlag.RefCounted) !== 0) this.addRoot('handle', 'COM/WinRT Objects', address);
      else if (kind === GcRootKind.Finalizer) this.addRoot('finalizer', 'finalizer Handles', address);
      else if (kind === GcRootKind.Handle) this.addRoot('handle', flags === GcRootFlag.Pinning ? 'pinning Handles' : 'strong Handles', address);
      else this.addRoot('other', 'other Handles', address);
    }
  }

  private readCwtEdges(v: DataView, at: number, size: number): void {
    const ps = this.pointerSize;
    const bytes = cwtValueBytes(ps);
    const { count } = this.indexed(v, at, size, bytes);
    let p = at + INDEXED_BULK_HEADER;
    // A dependent handle keeps its value alive while its key lives; the walk reports live keys only.
    for (let i = 0; i < count; i++, p += bytes) {
      if (this.ptr(v, p) !== 0) this.addRoot('handle', 'Dependent Handles', this.ptr(v, p + ps));
    }
  }

  private readStaticVars(r: SpanReader, end: number): void {
    if (end - r.pos < STATIC_VAR_HEADER) return;
    const v = r.view;
    const count = v.getUint32(r.pos, true);
    r.pos += STATIC_VAR_HEADER;
    // GCRootID u64, ObjectID u64, TypeID u64, Flags u32, FieldName (UTF-16, NUL-terminated).
    for (let i = 0; i < count && end - r.pos >= 28; i++) {
      r.skip(8);
      const object = r.u64();
      const typeId = r.u64();
      // Flags: a thread-static field is a root all the same, and dotnet-gcdump's paths name it alike.
      r.skip(4);
      const field = r.utf16z();
      if (object === 0) continue;
      const root = this.addRoot('static', '', object);
      this.staticNames.push({ root, typeId, field });
    }
  }

  private readTypes(r: SpanReader, end: number): void {
    if (end - r.pos < BULK_TYPE_HEADER) return;
    const count = r.view.getUint32(r.pos, true);
    r.pos += BULK_TYPE_HEADER;
    // TypeID u64, ModuleID u64, TypeNameID u32, Flags u32, CorElementType u8, Name, u32 parameter count, u64 parameters.
    for (let i = 0; i < count && end - r.pos >= 25; i++) {
      const typeId = r.u64();
      r.skip(8);
      const nameId = r.u32();
      const flags = r.u32();
      r.skip(1);
      let name = r.utf16z();
      const parameters = r.u32();
      if (parameters > (end - r.pos) / 8) break;
      r.skip(parameters * 8);
      if (name === '') name = (flags & TYPE_FLAG_ARRAY) !== 0 ? `ArrayType(0x${nameId.toString(16)})` : `Type(0x${nameId.toString(16)})`;
      this.typeNameById.set(typeId, displayTypeName(name));
    }
  }

  private readPerHeapHistory(v: DataView, at: number, size: number): void {
    const ps = this.pointerSize;
    // u16 ClrInstanceID, 6 pointers, 6 u32 (HeapIndex last), pointer ExtraGen0Commit, u32 Count, entries.
    const countAt = at + 2 + 6 * ps + 6 * 4 + ps;
    const entriesAt = countAt + 4;
    if (entriesAt > at + size) return;
    const count = v.getUint32(countAt, true);
    const entry = PerHeapEntry.pointers * ps;
    for (let g = 0; g < count && g < GENERATION_NAMES.length && entriesAt + (g + 1) * entry <= at + size; g++) {
      const e = entriesAt + g * entry;
      const sums = (this.generationSums[g] ??= [0, 0, 0]);
      sums[0] += this.ptr(v, e + PerHeapEntry.sizeAfter * ps);
      sums[1] += this.ptr(v, e + PerHeapEntry.freeListAfter * ps);
      sums[2] += this.ptr(v, e + PerHeapEntry.freeObjAfter * ps);
    }
  }

  /**
   * The snapshot. `complete` false when the stream ended before the walk's GCEnd (the process
   * exited, the session broke): what was read is kept when it holds objects.
   */
  finish(): { snapshot: HeapSnapshot; stats: HeapWalkStats; complete: boolean } {
    const N = this.address.length;
    if (N === 0) {
      throw new HeapWalkError(this.state === 'waiting' ? 'the runtime sent no heap walk (no blocking gen-2 collection with heap-walk events arrived)' : 'the heap walk ended before it described any object');
    }
    if (this.lostNodeEvents > 0 || this.lostEdgeEvents > 0) {
      throw new HeapWalkError(`the runtime dropped ${this.lostNodeEvents + this.lostEdgeEvents} heap-walk events (its session buffer filled faster than it was read), so the object graph is incomplete`);
    }
    const complete = this.state === 'done' && !this.cutAtBudget;
    const E = this.edgeTargets.length;
    if (complete && E !== this.declaredEdges) {
      throw new HeapWalkError(`the heap walk declared ${this.declaredEdges} references but described ${E}`);
    }
    const addresses = this.address.data.subarray(0, N);
    const index = new AddressIndex(addresses, N);
    // CSR from the running counts; references to unknown addresses (and, for a walk cut short, past the end) left out.
    const edgeStart = new Int32Array(N + 1);
    const edgeTarget = new Int32Array(Math.min(E, this.declaredEdges));
    const targets = this.edgeTargets.data;
    let kept = 0;
    let unresolved = 0;
    let from = 0;
    for (let n = 0; n < N; n++) {
      const to = Math.min(this.edgeEnd.data[n], E);
      for (let e = from; e < to; e++) {
        const w = index.get(targets[e]);
        if (w >= 0) edgeTarget[kept++] = w;
        else unresolved++;
      }
      from = Math.max(from, to);
      edgeStart[n + 1] = kept;
    }
    const typeNames = this.typeIds.map((id) => this.typeNameById.get(id) ?? `UNKNOWN 0x${id.toString(16)}`);
    for (const s of this.staticNames) {
      const typeName = this.typeNameById.get(s.typeId) ?? `Type(0x${s.typeId.toString(16)})`;
      this.rootName[s.root] = `static var ${typeName}.${s.field}`;
    }
    const names: string[] = [];
    const nameIndex = new Map<string, number>();
    const rootKind: number[] = [];
    const rootName: number[] = [];
    const rootTarget: number[] = [];
    let unresolvedRoots = 0;
    for (let r = 0; r < this.rootAddress.length; r++) {
      const target = index.get(this.rootAddress[r]);
      if (target < 0) {
        unresolvedRoots++;
        continue;
      }
      let id = nameIndex.get(this.rootName[r]);
      if (id === undefined) {
        id = names.length;
        names.push(this.rootName[r]);
        nameIndex.set(this.rootName[r], id);
      }
      rootKind.push(this.rootKind[r]);
      rootName.push(id);
      rootTarget.push(target);
    }
    const generations: GenerationStats[] = this.generationSums.map((s, g) => ({
      generation: g, name: GENERATION_NAMES[g], sizeBytes: s[0], freeListBytes: s[1], freeObjectBytes: s[2], fragmentationBytes: s[1] + s[2],
    }));
    const snapshot: HeapSnapshot = {
      typeNames,
      names,
      nodeCount: N,
      nodeType: this.type.data.slice(0, N),
      nodeSize: this.size.data.slice(0, N),
      nodeAddress: addresses.slice(),
      edgeStart,
      edgeTarget: kept === edgeTarget.length ? edgeTarget : edgeTarget.slice(0, kept),
      edgeName: undefined,
      rootKind: Uint8Array.from(rootKind),
      rootName: Int32Array.from(rootName),
      rootTarget: Int32Array.from(rootTarget),
      ...(generations.length > 0 ? { generations } : {}),
    };
    // The columns read are copied into the snapshot: let them go now, not when the session's
    // closures are collected, so the analysis that follows does not stand on top of them.
    this.address = new F64Column(0);
    this.size = new F64Column(0);
    this.edgeTargets = new F64Column(0);
    this.type = new I32Column(0);
    this.edgeEnd = new I32Column(0);
    return {
      snapshot,
      complete,
      stats: {
        gcNumber: this.gcNumber, objects: N, references: kept, unresolvedReferences: unresolved, roots: rootTarget.length, unresolvedRoots, eventBytes: this.eventBytes,
      },
    };
  }
}
