// Payload readers for the runtime events an import needs, following the layouts TraceEvent's
// ClrTraceEventParser reads (versions decide which fields exist).

import type { SpanReader } from './span-reader.js';

export interface MethodDefinition {
  moduleId: number;
  startAddress: number;
  size: number;
  namespace: string;
  name: string;
}

/** MethodLoadVerbose / MethodUnloadVerbose / MethodDCStartVerbose / MethodDCEndVerbose (all versions). */
export function readMethodVerbose(r: SpanReader): MethodDefinition {
  r.skip(8); // MethodID
  const moduleId = r.u64();
  const startAddress = r.u64();
  const size = r.u32();
  r.skip(8); // MethodToken, MethodFlags
  const namespace = r.utf16z();
  const name = r.utf16z();
  return { moduleId, startAddress, size, namespace, name };
}

/** ModuleLoad / ModuleUnload / ModuleDCStart / ModuleDCEnd: the id and the IL path. */
export function readModule(r: SpanReader): { moduleId: number; ilPath: string } {
  const moduleId = r.u64();
  r.skip(16); // AssemblyID, ModuleFlags, Reserved1
  return { moduleId, ilPath: r.utf16z() };
}

/** GCSuspendEEBegin: the ETW suspend reason (u16 in version 0, u32 later). */
export function readSuspendReason(r: SpanReader, version: number): number {
  return version >= 1 ? r.u32() : r.u16();
}

/** GCTYPE of GCStart: 1 is a background GC (gen 2, running while the program runs). */
export const GC_TYPE_BACKGROUND = 1;

/**
 * GCStart: generation, GC reason and GC type; version 0 payloads shorter than 16 bytes have no
 * depth, and type is 0 (non-concurrent) when the payload does not carry it.
 */
export function readGcStart(r: SpanReader, payloadSize: number): { depth: number; reason: number; type: number } {
  r.skip(4); // Count
  if (payloadSize >= 16) {
    const depth = r.u32();
    const reason = r.u32();
    return { depth, reason, type: r.u32() };
  }
  return { depth: 0, reason: r.u32(), type: 0 };
}

/**
 * RuntimeInformation: the runtime's product version. The VM fields hold the file version
 * (10.0.1226 for .NET 10.0.12), so the version is taken from the runtime library's folder
 * (…/Microsoft.NETCore.App/10.0.12/libcoreclr.so) when the path has one.
 */
export function readRuntimeVersion(r: SpanReader): string {
  r.skip(12); // ClrInstanceID, Sku, BCL version
  const vm = `${r.u16()}.${r.u16()}.${r.u16()}`;
  r.skip(2 + 4 + 1); // VM QFE, StartupFlags, StartupMode
  r.utf16z(); // CommandLine
  r.skip(16); // ComObjectGuid
  const path = r.utf16z();
  const m = /[/\\]Microsoft\.NETCore\.App[/\\]([^/\\]+)[/\\]/.exec(path);
  return m !== null ? m[1] : vm;
}
