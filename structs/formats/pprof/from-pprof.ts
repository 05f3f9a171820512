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

import type { Recording } from '../../profile/recording.js';
import { FunctionKind, HelloFlags, SampleFlags } from '../../wire/records.js';
import { RecordingBuilder } from '../import/stream-builder.js';
import { counted, ImportBudgetError, MAX_SAMPLE_FRAMES, MAX_SAMPLES } from '../../profile/read-budget.js';
import { APPROXIMATE_CPU_COMMENT, isOwnComment, ownCommentSource } from './pprof-comments.js';
import { PprofFormatError } from './pprof-format-error.js';
import { readPprof, readSample, sampleCount, type FunctionRec, type LocationRec, type PprofProfile, type SampleRec } from './pprof-reader.js';

/** HELLO.profilerVersion of a profile another tool wrote; clrscope's own export keeps its version from the comment it wrote ("clrscope 0.1.0 (pprof)"). */
export const PPROF_IMPORT_SOURCE = 'pprof import';

/** More samples than this in one row is not a count a profiler produced; the row becomes one sample. */
const MAX_SAMPLES_PER_ROW = 1_000_000;
/**
 * pprof keeps a count per row, and each counted sample becomes one sample of the recording
 * (33 bytes in its columns): a few bytes of file can ask for millions. The counts are added up
 * before anything is built, and a profile asking for more than the import budget's samples is
 * refused; so is one whose rows' stacks would hold more frames than it allows (a location can
 * list a million inlined lines, and a row name it a million times).
 */
export const MAX_PPROF_SAMPLES = MAX_SAMPLES;
/** The largest (decompressed) pprof clrscope reads: its decoder holds every message as objects, about 10 bytes of memory per byte. */
export const MAX_PPROF_BYTES = 8 * 1024 * 1024;
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

function decode(bytes: Uint8Array): PprofProfile {
  if (bytes.length === 0) throw new PprofFormatError('Not a readable pprof profile: it is empty.');
  if (bytes.length > MAX_PPROF_BYTES) {
    throw new PprofFormatError(`Not a readable pprof profile: it is ${(bytes.length / 1048576).toFixed(1)} MiB, more than the ${MAX_PPROF_BYTES / 1048576} MiB clrscope reads of a pprof profile.`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) throw new PprofFormatError('Not a readable pprof profile: it is still gzip-compressed; decompress it first.');
  const p = readPprof(bytes);
  if (p.sampleTypes.length === 0 && p.strings.length === 0) {
    throw new PprofFormatError('Not a readable pprof profile: it has neither sample types nor strings (the file is not a pprof profile or is corrupt).');
  }
  return p;
}

interface Metrics {
  cpu: number;
  wall: number;
  samples: number;
  cpuScale: number;
  wallScale: number;
}

function pickMetrics(p: PprofProfile, str: (i: number) => string): Metrics {
  const types = p.sampleTypes.map((t) => ({ type: str(t.type), unit: str(t.unit) }));
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
  try {
    return build(bytes);
  } catch (err) {
    // The builder's own budget (distinct stacks, functions), said as pprof's.
    if (err instanceof ImportBudgetError) throw new PprofFormatError(`Not a readable pprof profile: ${err.message}.`);
    throw err;
  }
}

function build(bytes: Uint8Array): Recording {
  const p = decode(bytes);
  const strings = p.strings;
  const str = (i: number): string => strings[i] ?? '';
  const m = pickMetrics(p, str);

  const periodUnit = p.periodType !== undefined ? str(p.periodType.unit) : '';
  const intervalNs = periodUnit === 'nanoseconds' ? p.period : 0;
  const startUnixNs = p.timeNanos;
  const comments = p.comments.map((c) => str(c));
  const own = comments.find(isOwnComment);
  const builder = new RecordingBuilder({
    flags: (m.cpu >= 0 ? HelloFlags.Cpu : 0) | (m.wall >= 0 ? HelloFlags.Wall : 0)
      | (comments.includes(APPROXIMATE_CPU_COMMENT) ? HelloFlags.ApproximateCpu : 0),
    startUnixNs: startUnixNs < 0n ? 0n : startUnixNs,
    intervalNs,
    source: own !== undefined ? `${ownCommentSource(own)} (pprof)` : PPROF_IMPORT_SOURCE,
  });

  const functions = new Map<number, FunctionRec>();
  for (const f of p.functions) functions.set(f.id, f);
  const mappings = new Map<number, string>();
  for (const mp of p.mappings) mappings.set(mp.id, str(mp.filename));
  const locations = new Map<number, LocationRec>();
  for (const l of p.locations) locations.set(l.id, l);

  const framesOfLocation = new Map<number, number[]>();
  const locationFrames = (id: number): number[] => {
    let frames = framesOfLocation.get(id);
    if (frames !== undefined) return frames;
    const loc = locations.get(id);
    if (loc === undefined) throw new PprofFormatError(`Not a readable pprof profile: a sample names location ${id}, which the profile does not define.`);
    const module = mappings.get(loc.mappingId) ?? '';
    frames = [];
    if (loc.functionIds.length === 0) {
      // An address nobody symbolized: the library and the address are all there is.
      frames.push(builder.function(FunctionKind.Native, `0x${loc.address.toString(16)}`, module, ''));
    }
    // line[0] is the innermost function inlined at this address, the last line its caller.
    for (const functionId of loc.functionIds) {
      const fn = functions.get(functionId);
      if (fn === undefined) throw new PprofFormatError(`Not a readable pprof profile: location ${id} names function ${functionId}, which the profile does not define.`);
      const name = str(fn.name) || str(fn.systemName);
      // pprof's function id is the identity: same-named functions stay apart, as they were exported.
      frames.push(builder.frame(name, str(fn.filename), module, `${fn.id}@${module}`));
    }
    framesOfLocation.set(id, frames);
    return frames;
  };

  const step = Math.max(1, intervalNs);
  let at = 0;
  const stack: number[] = [];
  const value = (values: number[], index: number, scale: number): number => {
    if (index < 0) return 0;
    const v = values[index] ?? 0;
    return Number.isFinite(v) && v > 0 ? v * scale : 0;
  };
  const countOf = (s: SampleRec): number => {
    let count = m.samples >= 0 ? Math.floor(value(s.values, m.samples, 1)) : 1;
    if (count === 0 && (value(s.values, m.cpu, m.cpuScale) > 0 || value(s.values, m.wall, m.wallScale) > 0)) count = 1;
    return count > MAX_SAMPLES_PER_ROW ? 1 : count;
  };
  const n = sampleCount(p);
  const row: SampleRec = { locationIds: [], values: [], labels: [] };
  // The plan: samples and frames every row will make, from the locations' line counts, before
  // a single frame is built.
  let total = 0;
  let frames = 0;
  for (let i = 0; i < n; i++) {
    const s = readSample(bytes, p, i, row);
    if (countOf(s) === 0) continue;
    total += countOf(s);
    // A row's samples share its stack, built once.
    let depth = 0;
    for (const id of s.locationIds) depth += Math.max(1, locations.get(id)?.functionIds.length ?? 1);
    frames += depth;
  }
  if (total > MAX_PPROF_SAMPLES) {
    throw new PprofFormatError(`Not a readable pprof profile: its sample counts add up to ${total} samples, more than the ${MAX_PPROF_SAMPLES} clrscope expands a pprof profile into (record to .clrscope to keep longer recordings).`);
  }
  if (frames > MAX_SAMPLE_FRAMES) {
    throw new PprofFormatError(`Not a readable pprof profile: its samples' stacks (each location's inlined lines counted) would hold more than ${counted(MAX_SAMPLE_FRAMES)} frames in all, the most clrscope reads of one file.`);
  }
  for (let i = 0; i < n; i++) {
    const s = readSample(bytes, p, i, row);
    const cpu = value(s.values, m.cpu, m.cpuScale);
    const wall = value(s.values, m.wall, m.wallScale);
    const count = countOf(s);
    if (count === 0) continue;

    let tid = 0;
    let name: string | undefined;
    for (const l of s.labels) {
      const key = str(l.key);
      if (THREAD_ID_KEYS.has(key)) tid = l.num || Number.parseInt(str(l.str), 10) || 0;
      else if (THREAD_NAME_KEYS.has(key)) name = str(l.str);
    }
    const hasThread = tid !== 0 || name !== undefined;
    const threadId = builder.thread(hasThread ? (name ?? '') : 'all threads', tid);

    stack.length = 0;
    for (const id of s.locationIds) for (const f of locationFrames(id)) stack.push(f);
    // Split the row's totals over its samples in whole nanoseconds that add up exactly.
    for (let k = 0; k < count; k++) {
      const c = Math.floor((cpu * (k + 1)) / count) - Math.floor((cpu * k) / count);
      const w = Math.floor((wall * (k + 1)) / count) - Math.floor((wall * k) / count);
      const flags = (c > 0 || (w === 0 && m.cpu >= 0) ? SampleFlags.Cpu : 0) | (w > 0 ? SampleFlags.Wall : 0);
      if (k === 0) builder.sample(at, threadId, flags, c, w, stack);
      else builder.repeat(at, threadId, flags, c, w);
      at += step;
    }
  }
  return builder.finish();
}

