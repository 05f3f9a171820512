// The runtime's heap-walk events, as Microsoft-Windows-DotNETRuntime writes them during a GC that
// an EventPipe session with the GCHeapCollect keyword induces (what dotnet-gcdump asks for).
// Ids, keywords and payload layouts from dotnet/runtime's ClrEtwAll.man (templates BulkType,
// GCBulkNode, GCBulkEdge, GCBulkRootEdge, GCBulkRootStaticVar,
// GCBulkRootConditionalWeakTableElementEdge, GCPerHeapHistory_V3): packed, little-endian,
// "win:Pointer" fields of the target's pointer size.

/** Keywords: GC 0x1, Type 0x80000, GCHeapDump 0x100000, GCHeapCollect 0x800000, GCHeapAndTypeNames 0x1000000. */
export const HeapWalkKeyword = {
  GC: 0x1n,
  Type: 0x80000n,
  GCHeapDump: 0x100000n,
  GCHeapCollect: 0x800000n,
  GCHeapAndTypeNames: 0x1000000n,
} as const;

/** What a heap snapshot session enables (TraceEvent calls the union GCHeapSnapshot), at level Verbose. */
export const HEAP_SNAPSHOT_KEYWORDS =
  HeapWalkKeyword.GC | HeapWalkKeyword.Type | HeapWalkKeyword.GCHeapDump | HeapWalkKeyword.GCHeapCollect | HeapWalkKeyword.GCHeapAndTypeNames;

export const HeapWalkEvent = {
  GCStart: 1,
  GCEnd: 2,
  BulkType: 15,
  GCBulkRootEdge: 16,
  GCBulkRootConditionalWeakTableElementEdge: 17,
  GCBulkNode: 18,
  GCBulkEdge: 19,
  GCBulkRootStaticVar: 38,
  GCPerHeapHistory: 204,
} as const;

/** GCStart's Type: a blocking GC outside a background one. */
export const GC_TYPE_NON_CONCURRENT = 0;

/** GCBulkRootEdge's GCRootKind (GCRootKindMap). */
export const GcRootKind = { Stack: 0, Finalizer: 1, Handle: 2 } as const;
/** GCBulkRootEdge's GCRootFlag bits (GCRootFlagsMap). */
export const GcRootFlag = { Pinning: 0x1, WeakRef: 0x2, Interior: 0x4, RefCounted: 0x8 } as const;
/** BulkType's Flags: an array type. */
export const TYPE_FLAG_ARRAY = 0x8;

/** Bytes before the values of GCBulkNode, GCBulkEdge, GCBulkRootEdge and the CWT edge event: u32 Index, u32 Count, u16 ClrInstanceID. */
export const INDEXED_BULK_HEADER = 10;
/** GCBulkNode value: pointer Address, u64 Size, u64 TypeID, u64 EdgeCount. */
export const nodeValueBytes = (pointerSize: number): number => pointerSize + 24;
/** GCBulkEdge value: pointer Value, u32 ReferencingFieldID. */
export const edgeValueBytes = (pointerSize: number): number => pointerSize + 4;
/** GCBulkRootEdge value: pointer RootedNodeAddress, u8 GCRootKind, u32 GCRootFlag, pointer GCRootID. */
export const rootEdgeValueBytes = (pointerSize: number): number => 2 * pointerSize + 5;
/** GCBulkRootConditionalWeakTableElementEdge value: pointers GCKeyNodeID, GCValueNodeID, GCRootID. */
export const cwtValueBytes = (pointerSize: number): number => 3 * pointerSize;
/** GCBulkRootStaticVar: u32 Count, u64 AppDomainID, u16 ClrInstanceID, then values of variable size. */
export const STATIC_VAR_HEADER = 14;
/** BulkType: u32 Count, u16 ClrInstanceID, then values of variable size. */
export const BULK_TYPE_HEADER = 6;

/** GCPerHeapHistory v3+: ten pointers per generation entry; offsets of the ones fragmentation needs. */
export const PerHeapEntry = { pointers: 10, sizeAfter: 3, freeListAfter: 4, freeObjAfter: 5 } as const;

/**
 * A runtime type name as dotnet-gcdump shows it, so that both name a type alike: generic arity
 * marks dropped (`List`1` → `List`), brackets made angle brackets (`List`1[Ns.Item]` →
 * `List<Ns.Item>`) except an empty pair, which stays an array's (`Item[]`).
 */
export function displayTypeName(name: string): string {
  return name.replace(/`\d+/g, '').replace(/\[/g, '<').replace(/\]/g, '>').replace(/<>/g, '[]');
}
