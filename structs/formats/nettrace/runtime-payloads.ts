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
