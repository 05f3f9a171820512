// The events clrscope writes, described the way the runtime describes them in a MetadataBlock:
// runtime events carry no field list (readers know their layouts by provider and id), so
// TraceEvent parses them with its built-in templates exactly as it parses a dotnet-trace file.
// Keywords, versions and levels are the ones the .NET 10 runtime writes (read from a
// dotnet-trace recording).

import { ByteWriter } from './byte-writer.js';
import { ClrscopeEvent, HostingEvent, Keyword, Level, METADATA_TAG_OPCODE, Opcode, Provider, RundownEvent, RuntimeEvent, TypeCode } from './constants.js';

export interface FieldDefinition {
  typeCode: number;
  name: string;
}

export interface EventDefinition {
  provider: string;
  eventId: number;
  /** Runtime events have an empty name; TraceEvent names them from its own manifest. */
  name: string;
  keywords: bigint;
  version: number;
  level: number;
  fields: readonly FieldDefinition[];
  /**
   * An EventSource event's opcode, written as the runtime's EventPipeMetadataGenerator writes a
   * non-Info one: a tag after the field list. Runtime events have none (readers know theirs).
   */
  opcode?: number;
}

function runtime(eventId: number, keywords: number | bigint, version: number, level: number = Level.Informational): EventDefinition {
  return { provider: Provider.Runtime, eventId, name: '', keywords: BigInt(keywords), version, level, fields: [] };
}

export const ThreadSampleEvent: EventDefinition = {
  provider: Provider.SampleProfiler, eventId: 0, name: '', keywords: 0n, version: 0, level: Level.Informational, fields: [],
};
export const GCSuspendEEBeginEvent = runtime(RuntimeEvent.GCSuspendEEBegin, Keyword.GC, 1);
export const GCSuspendEEEndEvent = runtime(RuntimeEvent.GCSuspendEEEnd, Keyword.GC, 1);
export const GCStartEvent = runtime(RuntimeEvent.GCStart, Keyword.GC, 2);
export const GCEndEvent = runtime(RuntimeEvent.GCEnd, Keyword.GC, 1);
export const GCRestartEEBeginEvent = runtime(RuntimeEvent.GCRestartEEBegin, Keyword.GC, 1);
export const GCRestartEEEndEvent = runtime(RuntimeEvent.GCRestartEEEnd, Keyword.GC, 1);

// clrscope's event samples as the runtime's events. Ids, versions, levels and keywords from
// dotnet/runtime's ClrEtwAll.man and NativeRuntimeEventSource (the .NET 8+ shapes): the
// metadata carries no opcode in format 4, readers take it from their own manifest (GCAllocationTick
// 11, ContentionStart 1 = Start, ContentionStop 2 = Stop, ExceptionThrown_V1 1 = Start in
// TraceEvent's ClrTraceEventParser).
/** GCAllocationTick_V4: Verbose, GC keyword. */
export const GCAllocationTickEvent = runtime(RuntimeEvent.GCAllocationTick, Keyword.GC, 4, Level.Verbose);
/** ContentionStart_V2 (LockID, AssociatedObjectID, LockOwnerThreadID since .NET 8). */
export const ContentionStartEvent = runtime(RuntimeEvent.ContentionStart, Keyword.Contention, 2);
/** ContentionStop_V1 (DurationNs since .NET 8). */
export const ContentionStopEvent = runtime(RuntimeEvent.ContentionStop, Keyword.Contention, 1);
/** ExceptionThrown_V1: level Error, keywords Exception | Monitoring. */
export const ExceptionThrownEvent = runtime(RuntimeEvent.ExceptionThrown, BigInt(Keyword.Exception) | BigInt(Keyword.Monitoring), 1, Level.Error);

export const MethodDCEndVerboseEvent: EventDefinition = {
  provider: Provider.Rundown, eventId: RundownEvent.MethodDCEndVerbose, name: '',
  keywords: BigInt(Keyword.Jit | Keyword.NGen), version: 1, level: Level.Informational, fields: [],
};
export const ModuleDCEndEvent: EventDefinition = {
  provider: Provider.Rundown, eventId: RundownEvent.ModuleDCEnd, name: '',
  keywords: 0x20000008n, version: 2, level: Level.Informational, fields: [],
};

/** clrscope's own: a thread's name, which format 4/5 has no place for. */
export const ClrscopeThreadInfoEvent: EventDefinition = {
  provider: Provider.Clrscope, eventId: ClrscopeEvent.ThreadInfo, name: 'ThreadInfo', keywords: 0n, version: 0, level: Level.Informational,
  fields: [{ typeCode: TypeCode.UInt64, name: 'OSThreadId' }, { typeCode: TypeCode.String, name: 'Name' }],
};

/** clrscope's own: what HELLO said, so reading the file back restores it. */
export const ClrscopeRecordingInfoEvent: EventDefinition = {
  provider: Provider.Clrscope, eventId: ClrscopeEvent.RecordingInfo, name: 'RecordingInfo', keywords: 0n, version: 0, level: Level.Informational,
  fields: [
    { typeCode: TypeCode.UInt64, name: 'StartMonoNs' },
    { typeCode: TypeCode.String, name: 'RuntimeVersion' },
    { typeCode: TypeCode.String, name: 'ProfilerVersion' },
    { typeCode: TypeCode.UInt32, name: 'Flags' },
    { typeCode: TypeCode.UInt32, name: 'WallThreadsPerTick' },
  ],
};

// ASP.NET Core's request events, as HostingEventSource declares them: Informational, no keywords,
// version 0; the Start/Stop suffixes give them EventSource's Start and Stop opcodes (and one task,
// "Request", which format 4/5 metadata has no place for: readers pair a start with its stop by
// provider and ActivityId).
export const HostingRequestStartEvent: EventDefinition = {
  provider: Provider.Hosting, eventId: HostingEvent.RequestStart, name: 'RequestStart', keywords: 0n, version: 0, level: Level.Informational,
  fields: [{ typeCode: TypeCode.String, name: 'method' }, { typeCode: TypeCode.String, name: 'path' }],
  opcode: Opcode.Start,
};
export const HostingRequestStopEvent: EventDefinition = {
  provider: Provider.Hosting, eventId: HostingEvent.RequestStop, name: 'RequestStop', keywords: 0n, version: 0, level: Level.Informational,
  fields: [], opcode: Opcode.Stop,
};

/** A MetadataBlock record's payload (format 4 layout: V1 field list; an opcode tag when the event has one). */
export function encodeMetadataPayload(metadataId: number, def: EventDefinition): Uint8Array {
  const w = new ByteWriter(128);
  w.i32(metadataId).utf16z(def.provider).i32(def.eventId).utf16z(def.name);
  w.u64(def.keywords).i32(def.version).i32(def.level);
  w.i32(def.fields.length);
  for (const f of def.fields) w.i32(f.typeCode).utf16z(f.name);
  if (def.opcode !== undefined && def.opcode !== 0) w.i32(1).u8(METADATA_TAG_OPCODE).u8(def.opcode);
  return w.take();
}
