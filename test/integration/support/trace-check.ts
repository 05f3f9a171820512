// TraceEvent's view of a .nettrace or .etlx file, through test/tools/TraceCheck (built by
// scripts/build-targets.sh): the independent reader the format tests hold our writers to.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export const TRACE_CHECK = join(ROOT, 'test', 'tools', 'TraceCheck', 'bin', 'out', 'TraceCheck.dll');

export interface TraceCheckMethod { frame: string; method: string; module: string; exclusive: number; inclusive: number }
export interface TraceCheckPause { startMs: number; durationMs: number; reason: number; generation: number; induced: boolean }
/** One kind of runtime event as TraceEvent's ClrTraceEventParser read it (TraceCheck's EventTally). */
export interface TraceCheckEventKind {
  events: number;
  /** Events whose stack TraceLog resolved to at least one named frame. */
  withStack: number;
  /** Event version → count. */
  versions: Record<string, number>;
  /** Per type name (exception type, allocated type, contention flags): events, and the summed amount where there is one. */
  byType: Record<string, { events: number; amount64?: number; durationNs?: number }>;
  /** The innermost named frame of each event's stack → count ("" for events without a stack). */
  topFrames: Record<string, number>;
}
export interface TraceCheck {
  events: number;
  eventsLost: number;
  samples: number;
  samplesByType: { managed: number; external: number; other: number };
  stackSourceSamples: number;
  unresolvedFrames: number;
  sessionStartUtc: string;
  firstSampleUtc: string;
  processes: number[];
  threads: { tid: number; samples: number }[];
  methods: TraceCheckMethod[];
  runtimeEvents: {
    allocationTicks: TraceCheckEventKind;
    allocationKinds: Record<string, number>;
    allocationObjectBytes: number;
    contentionStarts: TraceCheckEventKind;
    contentionStops: TraceCheckEventKind;
    contentionDurationNs: number;
    exceptions: TraceCheckEventKind;
    /** Exception type → ExceptionMessage ("" for none) → events. */
    exceptionMessages: Record<string, Record<string, number>>;
  };
  /** PerfView's thread time (SampleProfilerThreadTimeComputer): CPU_TIME and UNMANAGED_CODE_TIME totals. */
  threadTime: { cpuMs: number; cpuSamples: number; unmanagedMs: number };
  gc: { suspendEEStart?: number; suspendEEStop?: number; gcStart?: number; gcEnd?: number; restartEEStart?: number; restartEEStop?: number; generations: number[]; pausesWithoutGc: number; pauses: TraceCheckPause[] };
}

export function traceCheckBuilt(): boolean {
  return existsSync(TRACE_CHECK);
}

export function traceCheck(file: string): TraceCheck {
  assert.ok(existsSync(TRACE_CHECK), `${TRACE_CHECK} is missing: run bash scripts/build-targets.sh`);
  const r = spawnSync('dotnet', [TRACE_CHECK, file, '--top', '0'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(r.status, 0, `TraceCheck ${file} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as TraceCheck;
}

/** TraceCheck --requests: ASP.NET Core's request events and the start/stop activities TraceEvent makes of them (RequestTally.cs). */
export interface TraceCheckRequests {
  hosting: {
    providerGuid: string;
    /** TraceEvent's hash of the name Microsoft.AspNetCore.Hosting, as EventSource makes its Guid. */
    expectedProviderGuid: string;
    starts: number;
    stops: number;
    startsWithActivityPath: number;
    /** "id:opcode" → events, e.g. "3:Start". */
    opcodes: Record<string, number>;
    /** method + " " + path → RequestStart events. */
    startsByEndpoint: Record<string, number>;
    /** Each start with the stop of its ActivityId (none while in flight), times from TraceEvent's clock. */
    pairs: { activity: string; endpoint: string; startTid: number; startMs: number; stopTid?: number; durationNs?: number }[];
  };
  /** StartStopActivityComputer's activities of the Hosting provider. */
  activities: { name: string; taskName: string; path: string; nested: boolean; durationMs?: number }[];
  /** PerfView's Thread Time (with StartStop Activities): CPU under each "Activity …" frame, and outside any. */
  threadTime: { byActivity: Record<string, { cpuSamples: number; cpuMs: number }>; outsideCpuSamples: number; outsideCpuMs: number };
}

export function traceCheckRequests(file: string): TraceCheckRequests {
  assert.ok(existsSync(TRACE_CHECK), `${TRACE_CHECK} is missing: run bash scripts/build-targets.sh`);
  const r = spawnSync('dotnet', [TRACE_CHECK, file, '--requests'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(r.status, 0, `TraceCheck --requests ${file} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as TraceCheckRequests;
}
