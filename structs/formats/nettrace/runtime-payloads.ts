// Payloads of the runtime events clrscope writes, laid out as the runtime writes them and
// TraceEvent's ClrTraceEventParser reads them (strings are null-terminated UTF-16).

import { ByteWriter } from './byte-writer.js';

/** ClrInstanceID: the runtime's own value for the only runtime in the process. */
const CLR_INSTANCE_ID = 0;

export function threadSamplePayload(type: number): Uint8Array {
  return new ByteWriter(4).i32(type).take();
}

/** GCSuspendEEBegin v1: u32 reason (ETW's), u32 count (the GC index), u16 ClrInstanceID. */
export function gcSuspendEEBeginPayload(reason: number, count: number): Uint8Array {
  return new ByteWriter(10).u32(reason).u32(count).u16(CLR_INSTANCE_ID).take();
}

/** GCSuspendEEEnd, GCRestartEEBegin, GCRestartEEEnd v1: u16 ClrInstanceID only. */
export function gcNoUserDataPayload(): Uint8Array {
  return new ByteWriter(2).u16(CLR_INSTANCE_ID).take();
}

/** GCStart v2: u32 count, u32 depth (generation), u32 reason, u32 type, u16 ClrInstanceID, u64 client sequence. */
export function gcStartPayload(count: number, depth: number, reason: number, type: number): Uint8Array {
  return new ByteWriter(26).u32(count).u32(depth).u32(reason).u32(type).u16(CLR_INSTANCE_ID).u64(0).take();
}

/** GCEnd v1: u32 count, u32 depth, u16 ClrInstanceID. */
export function gcEndPayload(count: number, depth: number): Uint8Array {
  return new ByteWriter(10).u32(count).u32(depth).u16(CLR_INSTANCE_ID).take();
}

/** GCAllocationKind: 0 small object heap, 1 large object heap, 2 pinned object heap. */
export const AllocationKind = { Small: 0, Large: 1, Pinned: 2 } as const;

export interface AllocationTickInput {
  /** Bytes allocated since the previous tick; AllocationAmount gets its low 32 bits, as the runtime's cast does. */
  amount: number;
  kind: number;
  /** The type's MethodTable in the runtime; any id that is the same for the same type here. */
  typeId: number;
  typeName: string;
  heapIndex: number;
  address: number;
  objectSize: number;
}

/**
 * GCAllocationTick v4: u32 AllocationAmount, u32 AllocationKind, u16 ClrInstanceID,
 * u64 AllocationAmount64, pointer TypeID, string TypeName, u32 HeapIndex, pointer Address,
 * u64 ObjectSize.
 */
export function gcAllocationTickPayload(a: AllocationTickInput): Uint8Array {
  const w = new ByteWriter(64 + 2 * a.typeName.length);
  w.u32(a.amount % 4294967296).u32(a.kind).u16(CLR_INSTANCE_ID).u64(a.amount).u64(a.typeId);
  return w.utf16z(a.typeName).u32(a.heapIndex).u64(a.address).u64(a.objectSize).take();
}

/** ContentionFlags: 0 managed (a Monitor / Lock), 1 native. */
export const ContentionFlags = { Managed: 0, Native: 1 } as const;

/** ContentionStart v2: u8 ContentionFlags, u16 ClrInstanceID, pointer LockID, pointer AssociatedObjectID, u64 LockOwnerThreadID. */
export function contentionStartPayload(flags: number, lockId: number, associatedObjectId: number, ownerThreadId: number): Uint8Array {
  return new ByteWriter(32).u8(flags).u16(CLR_INSTANCE_ID).u64(lockId).u64(associatedObjectId).u64(ownerThreadId).take();
}

/** ContentionStop v1: u8 ContentionFlags, u16 ClrInstanceID, double DurationNs. */
export function contentionStopPayload(flags: number, durationNs: number): Uint8Array {
  return new ByteWriter(16).u8(flags).u16(CLR_INSTANCE_ID).f64(durationNs).take();
}

/** ExceptionFlags bit the runtime sets for every exception derived from System.Exception. */
export const EXCEPTION_FLAG_CLS_COMPLIANT = 0x10;

/** ExceptionThrown v1: string ExceptionType, string ExceptionMessage, pointer ExceptionEIP, u32 ExceptionHRESULT, u16 ExceptionFlags, u16 ClrInstanceID. */
export function exceptionThrownPayload(type: string, message: string, eip: number, hresult: number, flags: number): Uint8Array {
  const w = new ByteWriter(32 + 2 * (type.length + message.length));
  return w.utf16z(type).utf16z(message).u64(eip).u32(hresult).u16(flags).u16(CLR_INSTANCE_ID).take();
}

export interface MethodPayloadInput {
  methodId: number;
  moduleId: number;
  startAddress: number;
  size: number;
  token: number;
  flags: number;
  namespace: string;
  name: string;
  signature: string;
}

/** MethodLoadVerbose / MethodDCEndVerbose v1 (same layout). */
export function methodVerbosePayload(m: MethodPayloadInput): Uint8Array {
  const w = new ByteWriter(64 + 2 * (m.namespace.length + m.name.length + m.signature.length));
  w.u64(m.methodId).u64(m.moduleId).u64(m.startAddress).u32(m.size).u32(m.token).u32(m.flags);
  w.utf16z(m.namespace).utf16z(m.name).utf16z(m.signature).u16(CLR_INSTANCE_ID);
  return w.take();
}

/** ModuleLoad / ModuleDCEnd v2, with empty PDB information. */
export function modulePayload(moduleId: number, ilPath: string): Uint8Array {
  const w = new ByteWriter(96 + 2 * ilPath.length);
  w.u64(moduleId).u64(moduleId).u32(0).u32(0).utf16z(ilPath).utf16z('').u16(CLR_INSTANCE_ID);
  w.zeros(16).u32(0).utf16z('');
  w.zeros(16).u32(0).utf16z('');
  return w.take();
}

export function clrscopeThreadInfoPayload(osTid: number, name: string): Uint8Array {
  return new ByteWriter(16 + 2 * name.length).u64(osTid).utf16z(name).take();
}

export function clrscopeRecordingInfoPayload(startMono: number, runtimeVersion: string, profilerVersion: string, flags: number, wallThreadsPerTick: number): Uint8Array {
  const w = new ByteWriter(32 + 2 * (runtimeVersion.length + profilerVersion.length));
  return w.u64(startMono).utf16z(runtimeVersion).utf16z(profilerVersion).u32(flags).u32(wallThreadsPerTick).take();
}

export interface HeapStatsInput {
  /** Bytes in generations 0, 1, 2, the large and the pinned object heap after the GC. */
  sizes: readonly number[];
  /** Bytes promoted out of each of them. */
  promoted: readonly number[];
  gcHandles: number;
  pinnedObjects: number;
}

/**
 * GCHeapStats v2: (u64 GenerationSize, u64 TotalPromotedSize) for gens 0..3, u64
 * FinalizationPromotedSize, u64 FinalizationPromotedCount, u32 PinnedObjectCount, u32
 * SinkBlockCount, u32 GCHandleCount (the low 32 bits of the runtime's signed count), u16
 * ClrInstanceID, then u64 GenerationSize4, u64 TotalPromotedSize4.
 */
export function gcHeapStatsPayload(h: HeapStatsInput): Uint8Array {
  const w = new ByteWriter(110);
  for (let g = 0; g < 4; g++) w.u64(h.sizes[g] ?? 0).u64(h.promoted[g] ?? 0);
  w.u64(0).u64(0).u32(h.pinnedObjects).u32(0).u32(h.gcHandles >>> 0).u16(CLR_INSTANCE_ID);
  return w.u64(h.sizes[4] ?? 0).u64(h.promoted[4] ?? 0).take();
}
