// pprof (profile.proto, already gunzipped) -> Recording.
//
// Values: sample types named cpu, wall and samples fill the metrics of the same names; a
// profile with neither cpu nor wall (a heap profile, say) has its default sample type read as
// cpu, so the views have something to show. Time units are converted to nanoseconds.
// Threads: the `thread id` / `thread name` labels clrscope's export writes (other profilers
// use the same keys); samples without them go to one thread called "all threads".
// Frames: each location's lines, innermost inlined function first, become frames; pprof keeps
// no per-sample times, so each row with a count of N becomes N samples sharing its values,
// placed one sampling period apart in file order.
// Comments: clrscope's own (pprof-comments.ts) give back the profiler's version and whether
// the CPU times were estimates.

import { Profile, type Function as PprofFunction, type Location } from 'pprof-format';
import type { Recording } from '../../profile/recording.js';
import { FunctionKind, HelloFlags, SampleFlags } from '../../wire/records.js';
import { RecordingBuilder } from '../clrscope-file/stream-builder.js';
import { APPROXIMATE_CPU_COMMENT, isOwnComment, ownCommentSource } from './pprof-comments.js';
import { PprofFormatError } from './pprof-format-error.js';
import { checkProtobufFraming } from './protobuf-framing.js';

/** HELLO.profilerVersion of a profile another tool wrote; clrscope's own export keeps its version from the comment it wrote ("clrscope 0.1.0 (pprof)"). */
export const PPROF_IMPORT_SOURCE = 'pprof import';

/** More samples than this in one row is not a count a profiler produced; the row becomes one sample. */
const MAX_SAMPLES_PER_ROW = 1_000_000;
const THREAD_ID_KEYS = new Set(['thread id', 'thread_id', 'tid']);
const THREAD_NAME_KEYS = new Set(['thread name', 'thread_name']);

function nanosecondsPer(unit: string): number {
  switch (unit) {
    case 'microseconds': return 1e3;
    case 'milliseconds': return 1e6;
    case 'seconds': return 1e9;
    default: return 1;
  }
}

function decode(bytes: Uint8Array): Profile {
  if (bytes.length === 0) throw new PprofFormatError('Not a readable pprof profile: it is empty.');
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) throw new PprofFormatError('Not a readable pprof profile: it is still gzip-compressed; decompress it first.');
  checkProtobufFraming(bytes);
  try {
    return Profile.decode(bytes);
  } catch (err) {
    throw new PprofFormatError(`Not a readable pprof profile: ${(err as Error).message.replace(/\.$/, '')} (the file is not a pprof profile or is corrupt).`);
  }
}

interface Metrics {
  cpu: number;
  wall: number;
  samples: number;
  cpuScale: number;
  wallScale: number;
}

function pickMetrics(p: Profile, str: (i: unknown) => string): Metrics {
  const types = p.sampleType.map((t) => ({ type: str(t.type), unit: str(t.unit) }));
  const find = (name: string): number => types.findIndex((t) => t.type === name);
  let cpu = find('cpu');
  const wall = find('wall');
  const samples = find('samples');
  if (cpu < 0 && wall < 0 && types.length > 0) {
    const preferred = str(p.defaultSampleType);
    const index = preferred !== '' ? find(preferred) : -1;
    // pprof's own rule: without a default, the last sample type is the one shown.
    cpu = index >= 0 ? index : types.length - 1;
  }
  return {
    cpu, wall, samples,
    cpuScale: cpu >= 0 ? nanosecondsPer(types[cpu].unit) : 1,
    wallScale: wall >= 0 ? nanosecondsPer(types[wall].unit) : 1,
  };
}

export function fromPprof(bytes: Uint8Array): Recording {
  const p = decode(bytes);
  const strings = p.stringTable.strings;
  const str = (i: unknown): string => strings[Number(i)] ?? '';
  const m = pickMetrics(p, str);

  const periodUnit = p.periodType !== undefined ? str(p.periodType.unit) : '';
  const intervalNs = periodUnit === 'nanoseconds' ? Number(p.period) : 0;
  let startUnixNs = 0n;
  try {
    startUnixNs = BigInt(p.timeNanos);
  } catch {
    // A time that is not a whole number is no time at all; the recording starts at 0.
  }
  const comments = p.comment.map((c) => str(c));
  const own = comments.find(isOwnComment);
  const builder = new RecordingBuilder({
    flags: (m.cpu >= 0 ? HelloFlags.Cpu : 0) | (m.wall >= 0 ? HelloFlags.Wall : 0)
      | (comments.includes(APPROXIMATE_CPU_COMMENT) ? HelloFlags.ApproximateCpu : 0),
    startUnixNs: startUnixNs < 0n ? 0n : startUnixNs,
    intervalNs,
    source: own !== undefined ? `${ownCommentSource(own)} (pprof)` : PPROF_IMPORT_SOURCE,
  });

  const functions = new Map<number, PprofFunction>();
  for (const f of p.function) functions.set(Number(f.id), f);
  const mappings = new Map<number, string>();
  for (const mp of p.mapping) mappings.set(Number(mp.id), str(mp.filename));
  const locations = new Map<number, Location>();
  for (const l of p.location) locations.set(Number(l.id), l);

  const framesOfLocation = new Map<number, number[]>();
  const locationFrames = (id: number): number[] => {
    let frames = framesOfLocation.get(id);
    if (frames !== undefined) return frames;
    const loc = locations.get(id);
    if (loc === undefined) throw new PprofFormatError(`Not a readable pprof profile: a sample names location ${id}, which the profile does not define.`);
    const module = mappings.get(Number(loc.mappingId)) ?? '';
    frames = [];
    if (loc.line.length === 0) {
      // An address nobody symbolized: the library and the address are all there is.
      frames.push(builder.function(FunctionKind.Native, `0x${BigInt(loc.address).toString(16)}`, module, ''));
    }
    // line[0] is the innermost function inlined at this address, the last line its caller.
    for (const line of loc.line) {
      const fn = functions.get(Number(line.functionId));
      if (fn === undefined) throw new PprofFormatError(`Not a readable pprof profile: location ${id} names function ${Number(line.functionId)}, which the profile does not define.`);
      const name = str(fn.name) || str(fn.systemName);
      // pprof's function id is the identity: same-named functions stay apart, as they were exported.
      frames.push(builder.frame(name, str(fn.filename), module, `${Number(fn.id)}@${module}`));
    }
    framesOfLocation.set(id, frames);
    return frames;
  };

  const step = Math.max(1, intervalNs);
  let at = 0;
  const stack: number[] = [];
  const value = (values: unknown[], index: number, scale: number): number => {
    if (index < 0) return 0;
    const v = Number(values[index] ?? 0);
    return Number.isFinite(v) && v > 0 ? v * scale : 0;
  };
  for (const s of p.sample) {
    const cpu = value(s.value, m.cpu, m.cpuScale);
    const wall = value(s.value, m.wall, m.wallScale);
    let count = m.samples >= 0 ? Math.floor(value(s.value, m.samples, 1)) : 1;
    if (count === 0 && (cpu > 0 || wall > 0)) count = 1;
    if (count === 0) continue;
    if (count > MAX_SAMPLES_PER_ROW) count = 1;

    let tid = 0;
    let name: string | undefined;
    for (const l of s.label) {
      const key = str(l.key);
      if (THREAD_ID_KEYS.has(key)) tid = Number(l.num) || Number.parseInt(str(l.str), 10) || 0;
      else if (THREAD_NAME_KEYS.has(key)) name = str(l.str);
    }
    const hasThread = tid !== 0 || name !== undefined;
    const threadId = builder.thread(hasThread ? (name ?? '') : 'all threads', tid);

    stack.length = 0;
    for (const id of s.locationId) for (const f of locationFrames(Number(id))) stack.push(f);
    // Split the row's totals over its samples in whole nanoseconds that add up exactly.
    for (let k = 0; k < count; k++) {
      const c = Math.floor((cpu * (k + 1)) / count) - Math.floor((cpu * k) / count);
      const w = Math.floor((wall * (k + 1)) / count) - Math.floor((wall * k) / count);
      const flags = (c > 0 || (w === 0 && m.cpu >= 0) ? SampleFlags.Cpu : 0) | (w > 0 ? SampleFlags.Wall : 0);
      builder.sample(at, threadId, flags, c, w, stack);
      at += step;
    }
  }
  return builder.finish();
}
