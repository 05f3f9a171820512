// clrscope's own heap snapshot file (.clrheap): a HeapSnapshot's columns as they are in memory,
// so saving and opening cost a copy each, with what .gcdump has no place for (each generation's
// size and fragmentation, field names of references, root kinds) kept.
//
// Layout, little-endian:
//   8 bytes  magic "CLRHEAP\0"
//   u32      version (1)
//   u32      byte length of the header, then the header: UTF-8 JSON
//            {"nodes":N,"edges":E,"roots":R,"edgeNames":bool,"typeNames":[...],"names":[...],
//             "generations":[...]?, "info":{...}?}
//   padding to a multiple of 8 from the file's start, then the columns, each padded to 8:
//   nodeType i32[N], nodeSize f64[N], nodeAddress f64[N], edgeStart i32[N+1], edgeTarget i32[E],
//   edgeName i32[E] (when edgeNames), rootKind u8[R], rootName i32[R], rootTarget i32[R].
//
// Reading checks every count against the bytes there, every index against what it indexes and
// the edge offsets for order, so a hostile file costs time and memory linear in its size and
// fails with one sentence.

import { joined } from '../../wire/joined-bytes.js';
import { ROOT_KINDS, type GenerationStats, type HeapSnapshot } from '../../heap/heap-snapshot.js';

export const CLRHEAP_MAGIC = 'CLRHEAP\0';
export const CLRHEAP_VERSION = 1;

export class ClrheapFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClrheapFormatError';
  }
}

/** What a snapshot file says about where it came from. */
export interface ClrheapInfo {
  pid?: number;
  takenAt?: string;
  gcNumber?: number;
}

interface Header {
  nodes: number;
  edges: number;
  roots: number;
  edgeNames: boolean;
  typeNames: string[];
  names: string[];
  generations?: GenerationStats[];
  info?: ClrheapInfo;
}

export function isClrheap(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  for (let i = 0; i < 8; i++) if (head[i] !== CLRHEAP_MAGIC.charCodeAt(i)) return false;
  return true;
}

const pad8 = (n: number): number => (n + 7) & ~7;

/** The file's bytes as a list of parts (columns are views of the snapshot's arrays, not copies). */
export function clrheapParts(snap: HeapSnapshot, info: ClrheapInfo = {}): Uint8Array[] {
  const header: Header = {
    nodes: snap.nodeCount, edges: snap.edgeTarget.length, roots: snap.rootTarget.length, edgeNames: snap.edgeName !== undefined,
    typeNames: [...snap.typeNames], names: [...snap.names],
    ...(snap.generations !== undefined ? { generations: [...snap.generations] } : {}), info,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(pad8(16 + json.length));
  head.set(new TextEncoder().encode(CLRHEAP_MAGIC), 0);
  const view = new DataView(head.buffer);
  view.setUint32(8, CLRHEAP_VERSION, true);
  view.setUint32(12, json.length, true);
  head.set(json, 16);
  const parts: Uint8Array[] = [head];
  const column = (a: Int32Array | Float64Array | Uint8Array): void => {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    parts.push(bytes);
    if (pad8(bytes.length) !== bytes.length) parts.push(new Uint8Array(pad8(bytes.length) - bytes.length));
  };
  column(snap.nodeType);
  column(snap.nodeSize);
  column(snap.nodeAddress);
  column(snap.edgeStart);
  column(snap.edgeTarget);
  if (snap.edgeName !== undefined) column(snap.edgeName);
  column(snap.rootKind);
  column(snap.rootName);
  column(snap.rootTarget);
  return parts;
}

/** The whole file in one array; to write a file, clrheapParts spares this copy of every column. */
export function writeClrheap(snap: HeapSnapshot, info: ClrheapInfo = {}): Uint8Array {
  return joined(clrheapParts(snap, info));
}

export function readClrheap(bytes: Uint8Array): HeapSnapshot & { info: ClrheapInfo } {
  if (!isClrheap(bytes)) throw new ClrheapFormatError('not a clrscope heap snapshot: it does not start with "CLRHEAP"');
  if (bytes.length < 16) throw new ClrheapFormatError('the file is truncated inside its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== CLRHEAP_VERSION) throw new ClrheapFormatError(`a snapshot file of version ${version}; this clrscope reads version ${CLRHEAP_VERSION}`);
  const jsonLength = view.getUint32(12, true);
  if (16 + jsonLength > bytes.length) throw new ClrheapFormatError(`its header claims ${jsonLength} bytes, more than the file holds`);
  let h: Header;
  try {
    h = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(16, 16 + jsonLength))) as Header;
  } catch {
    throw new ClrheapFormatError('its header is not readable JSON');
  }
  const count = (v: unknown, what: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0x7ffffffe) throw new ClrheapFormatError(`its header gives no valid count of ${what}`);
    return v;
  };
  const N = count(h.nodes, 'objects');
  const E = count(h.edges, 'references');
  const R = count(h.roots, 'roots');
  const strings = (v: unknown, what: string): string[] => {
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new ClrheapFormatError(`its header's ${what} are not a list of strings`);
    return v as string[];
  };
  const typeNames = strings(h.typeNames, 'type names');
  const names = strings(h.names, 'names');
  const need = pad8(4 * N) + 16 * N + pad8(4 * (N + 1)) + (h.edgeNames === true ? 2 : 1) * pad8(4 * E) + pad8(R) + 2 * pad8(4 * R);
  let at = pad8(16 + jsonLength);
  if (at + need !== bytes.length) throw new ClrheapFormatError(`its columns should take ${need} bytes after the header, but ${Math.max(0, bytes.length - at)} follow`);
  // Views of the file's bytes where they are aligned (a file read whole is: the columns start at
  // multiples of 8), so a snapshot opened costs no second copy of itself; copies otherwise.
  const aligned = bytes.byteOffset % 8 === 0;
  const take = <T extends Int32Array | Float64Array | Uint8Array>(Ctor: new (b: ArrayBufferLike, offset?: number, length?: number) => T, n: number, size: number): T => {
    let column: T;
    if (aligned) column = new Ctor(bytes.buffer, bytes.byteOffset + at, n);
    else {
      const copy = new Uint8Array(n * size);
      copy.set(bytes.subarray(at, at + n * size));
      column = new Ctor(copy.buffer);
    }
    at += pad8(n * size);
    return column;
  };
  const nodeType = take(Int32Array, N, 4);
  const nodeSize = take(Float64Array, N, 8);
  const nodeAddress = take(Float64Array, N, 8);
  const edgeStart = take(Int32Array, N + 1, 4);
  const edgeTarget = take(Int32Array, E, 4);
  const edgeName = h.edgeNames === true ? take(Int32Array, E, 4) : undefined;
  const rootKind = take(Uint8Array, R, 1);
  const rootName = take(Int32Array, R, 4);
  const rootTarget = take(Int32Array, R, 4);
  for (let v = 0; v < N; v++) {
    if (nodeType[v] < 0 || nodeType[v] >= typeNames.length) throw new ClrheapFormatError(`object ${v} names type ${nodeType[v]} of ${typeNames.length}`);
    if (!(nodeSize[v] >= 0)) throw new ClrheapFormatError(`object ${v} has the size ${nodeSize[v]}`);
  }
  if (edgeStart[0] !== 0 || edgeStart[N] !== E) throw new ClrheapFormatError(`its reference offsets run from ${edgeStart[0]} to ${edgeStart[N]}, not 0 to ${E}`);
  for (let v = 0; v < N; v++) if (edgeStart[v + 1] < edgeStart[v]) throw new ClrheapFormatError(`object ${v}'s references end before they start`);
  for (let e = 0; e < E; e++) {
    if (edgeTarget[e] < 0 || edgeTarget[e] >= N) throw new ClrheapFormatError(`reference ${e} names object ${edgeTarget[e]} of ${N}`);
    if (edgeName !== undefined && (edgeName[e] < -1 || edgeName[e] >= names.length)) throw new ClrheapFormatError(`reference ${e} names field ${edgeName[e]} of ${names.length}`);
  }
  for (let r = 0; r < R; r++) {
    if (rootKind[r] >= ROOT_KINDS.length) throw new ClrheapFormatError(`root ${r} is of kind ${rootKind[r]}, which no root has`);
    if (rootName[r] < 0 || rootName[r] >= names.length) throw new ClrheapFormatError(`root ${r} names name ${rootName[r]} of ${names.length}`);
    if (rootTarget[r] < 0 || rootTarget[r] >= N) throw new ClrheapFormatError(`root ${r} names object ${rootTarget[r]} of ${N}`);
  }
  const generations = Array.isArray(h.generations) ? h.generations.filter(isGeneration) : undefined;
  return {
    typeNames, names, nodeCount: N, nodeType, nodeSize, nodeAddress, edgeStart, edgeTarget, edgeName, rootKind, rootName, rootTarget,
    ...(generations !== undefined && generations.length > 0 ? { generations } : {}),
    info: typeof h.info === 'object' && h.info !== null ? h.info : {},
  };
}

function isGeneration(g: unknown): g is GenerationStats {
  if (typeof g !== 'object' || g === null) return false;
  const o = g as Record<string, unknown>;
  return typeof o.generation === 'number' && typeof o.name === 'string' && ['sizeBytes', 'freeListBytes', 'freeObjectBytes', 'fragmentationBytes'].every((k) => typeof o[k] === 'number');
}
