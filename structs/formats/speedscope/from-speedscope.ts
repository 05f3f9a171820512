// speedscope JSON -> Recording. Sampled profiles become one sample per stack with its weight;
// evented profiles (dotnet-trace's speedscope output, for one) become one sample per interval
// between consecutive open/close events, carrying the stack open during it.
//
// Each profile is a thread. Profiles clrscope wrote (exporter "clrscope…") name their thread
// and metric (`main (tid 42) · wall`), so a thread's cpu and wall profiles come back as one
// thread with both metrics. Any other profile is its own thread, named after the profile, and
// its weights count as cpu: speedscope does not say which kind of time they are. clrscope's
// exporter also says whether the CPU times were estimates (exporter-name.ts).

import type { Recording } from '../../profile/recording.js';
import { HelloFlags, SampleFlags } from '../../wire/records.js';
import { RecordingBuilder } from '../clrscope-file/stream-builder.js';
import { parseExporter } from './exporter-name.js';
import { ASYNC_PROFILE_PREFIX, EVENT_PROFILE_PREFIX, parseProfileName, type TimeMetric } from './profile-name.js';
import { SPEEDSCOPE_UNITS, nanosecondsPer, type SpeedscopeUnit } from './speedscope-file.js';
import { SpeedscopeFormatError } from './speedscope-format-error.js';

type Json = Record<string, unknown>;

/** HELLO.profilerVersion of a profile another tool wrote; clrscope's own keep their `exporter`, less its estimated-CPU mark. */
export const SPEEDSCOPE_IMPORT_SOURCE = 'speedscope import';

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(why: string): never {
  throw new SpeedscopeFormatError(`Not a readable speedscope file: ${why}.`);
}

/**
 * Where JSON.parse stopped, without its quote of the text: V8 quotes the file's first bytes
 * ("Unexpected token 'r', "root:x:0:0:"... is not valid JSON"), and a message must never carry
 * the content of whatever file someone asked clrscope to open.
 */
function jsonProblem(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : '';
  const at = /at position (\d+)/.exec(message);
  if (at !== null) return `it breaks off at character ${at[1]}`;
  if (/Unexpected end of JSON input/.test(message)) return text.trim() === '' ? 'it is empty' : 'it ends too early';
  return 'it does not start as JSON does';
}

/**
 * A value as the file has it, for a message: numbers and the format's own words (types and
 * units) as they are, anything else only by its kind, so no message repeats the file's text.
 */
function shown(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return /^[a-z]{1,16}$/.test(v) ? JSON.stringify(v) : 'a string';
  return Array.isArray(v) ? 'a list' : 'an object';
}

function finiteNumber(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${what} is ${shown(v)}, not a number`);
  return v;
}

/** About 292 years of nanoseconds: beyond this a time is not one a recording can hold. */
const MAX_NS = 2 ** 63;

function nanoseconds(v: number, what: string): number {
  if (!(Math.abs(v) <= MAX_NS)) fail(`${what} is ${v} ns, more than a recording can hold`);
  return v;
}

interface ProfileTarget {
  threadId: number;
  metric: TimeMetric;
  /** ns per unit of this profile's values. */
  scale: number;
  /** ns from the earliest profile's start to this profile's start. */
  offsetNs: number;
}

export function fromSpeedscope(input: string | unknown): Recording {
  let file: unknown = input;
  if (typeof input === 'string') {
    try {
      file = JSON.parse(input);
    } catch (err) {
      fail(`the text is not valid JSON (${jsonProblem(err, input)})`);
    }
  }
  if (!isObject(file)) fail('the JSON is not an object');
  const shared = file.shared;
  if (!isObject(shared) || !Array.isArray(shared.frames)) fail('it has no shared.frames list');
  if (!Array.isArray(file.profiles)) fail('it has no profiles list');
  const frames = shared.frames as unknown[];
  const profiles = file.profiles as unknown[];
  const exporter = parseExporter(file.exporter);
  const ours = exporter.ours;

  let starts = Number.POSITIVE_INFINITY;
  let flags = exporter.approximateCpu ? HelloFlags.ApproximateCpu : 0;
  const checked: Json[] = profiles.map((p, i) => {
    if (!isObject(p)) fail(`profile ${i} is not an object`);
    if (p.type !== 'sampled' && p.type !== 'evented') fail(`profile ${i} has type ${shown(p.type)}, not "sampled" or "evented"`);
    if (!SPEEDSCOPE_UNITS.includes(p.unit as SpeedscopeUnit)) fail(`profile ${i} has unit ${shown(p.unit)}, not one of ${SPEEDSCOPE_UNITS.join(', ')}`);
    const scale = nanosecondsPer(p.unit as SpeedscopeUnit) ?? 1;
    const start = nanoseconds(finiteNumber(p.startValue, `profile ${i}'s startValue`) * scale, `profile ${i}'s startValue`);
    nanoseconds(finiteNumber(p.endValue, `profile ${i}'s endValue`) * scale, `profile ${i}'s endValue`);
    starts = Math.min(starts, start);
    const identity = ours && typeof p.name === 'string' ? parseProfileName(p.name) : undefined;
    if (ours && typeof p.name === 'string' && (p.name.startsWith(EVENT_PROFILE_PREFIX) || p.name.startsWith(ASYNC_PROFILE_PREFIX))) return p;
    flags |= identity?.metric === 'wall' ? HelloFlags.Wall : HelloFlags.Cpu;
    return p;
  });

  const builder = new RecordingBuilder({ flags, source: ours ? exporter.source : SPEEDSCOPE_IMPORT_SOURCE });
  const frameIds: (number | undefined)[] = [];
  const functionOf = (index: unknown, where: string): number => {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= frames.length) {
      fail(`${where} names frame ${shown(index)}, but shared.frames has ${frames.length}`);
    }
    let id = frameIds[index];
    if (id === undefined) {
      const f = frames[index];
      if (!isObject(f) || typeof f.name !== 'string') fail(`frame ${index} has no name`);
      id = builder.frame(f.name, typeof f.file === 'string' ? f.file : '');
      frameIds[index] = id;
    }
    return id;
  };

  checked.forEach((p, i) => {
    const name = typeof p.name === 'string' ? p.name : `profile ${i}`;
    // clrscope's event profiles (`events · alloc-space`) are sums with no time or thread: not samples;
    // its async profiles (`async stacks · cpu`) are the same samples again, seen through their tasks.
    if (ours && (name.startsWith(EVENT_PROFILE_PREFIX) || name.startsWith(ASYNC_PROFILE_PREFIX))) return;
    const identity = ours ? parseProfileName(name) : undefined;
    const scale = nanosecondsPer(p.unit as SpeedscopeUnit) ?? 1;
    const target: ProfileTarget = {
      threadId: identity !== undefined
        ? builder.thread(identity.thread === `thread ${identity.osTid}` ? '' : identity.thread, identity.osTid)
        : builder.thread(name, 0),
      metric: identity?.metric ?? 'cpu',
      scale,
      offsetNs: (p.startValue as number) * scale - starts,
    };
    if (p.type === 'sampled') sampled(builder, p, i, target, functionOf);
    else evented(builder, p, i, target, functionOf);
  });
  return builder.finish();
}

type FunctionOf = (index: unknown, where: string) => number;

function emit(builder: RecordingBuilder, t: ProfileTarget, atNs: number, valueNs: number, leafFirst: number[]): void {
  const cpu = t.metric === 'cpu';
  builder.sample(t.offsetNs + atNs, t.threadId, cpu ? SampleFlags.Cpu : SampleFlags.Wall, cpu ? valueNs : 0, cpu ? 0 : valueNs, leafFirst);
}

function sampled(builder: RecordingBuilder, p: Json, i: number, t: ProfileTarget, functionOf: FunctionOf): void {
  const { samples, weights } = p;
  if (!Array.isArray(samples) || !Array.isArray(weights)) fail(`sampled profile ${i} lacks its samples or weights list`);
  if (samples.length !== weights.length) fail(`sampled profile ${i} has ${samples.length} samples but ${weights.length} weights`);
  let at = 0;
  const leafFirst: number[] = [];
  for (let s = 0; s < samples.length; s++) {
    const stack: unknown = samples[s];
    if (!Array.isArray(stack)) fail(`sample ${s} of profile ${i} is not a list of frame indexes`);
    const weight = finiteNumber(weights[s], `weight ${s} of profile ${i}`);
    if (weight < 0) fail(`weight ${s} of profile ${i} is negative`);
    nanoseconds(at + weight * t.scale, `the end of sample ${s} of profile ${i}`);
    leafFirst.length = 0;
    for (let k = stack.length - 1; k >= 0; k--) leafFirst.push(functionOf(stack[k], `sample ${s} of profile ${i}`));
    emit(builder, t, at, weight * t.scale, leafFirst);
    // speedscope lays a sampled profile's samples end to end by weight; so do the timestamps.
    at += weight * t.scale;
  }
}

/**
 * Frames an evented profile may turn into, in all: each interval between two events becomes
 * a sample carrying every open frame, so N nested opens would make N²/2 frames out of N
 * events (40,000 of them, 1.35 MB, took clrscope to an out-of-memory abort). Linear in the
 * events, with room for real profiles' depths.
 */
const FRAMES_PER_EVENT = 256;
const FRAMES_BASE = 4_000_000;

function evented(builder: RecordingBuilder, p: Json, i: number, t: ProfileTarget, functionOf: FunctionOf): void {
  const events = p.events;
  if (!Array.isArray(events)) fail(`evented profile ${i} lacks its events list`);
  const start = p.startValue as number;
  const open: number[] = [];
  const openFrames: unknown[] = [];
  let last = start;
  const budget = FRAMES_BASE + FRAMES_PER_EVENT * events.length;
  let spent = 0;
  const flush = (until: number): void => {
    if (until > last && open.length > 0) {
      spent += open.length;
      if (spent > budget) {
        fail(`evented profile ${i} opens frames so deeply (${open.length} at once) that its samples would hold more than ${budget} frames, more than clrscope reads for ${events.length} events`);
      }
      emit(builder, t, (last - start) * t.scale, (until - last) * t.scale, open.slice().reverse());
    }
    if (until > last) last = until;
  };
  events.forEach((ev: unknown, e) => {
    if (!isObject(ev)) fail(`event ${e} of profile ${i} is not an object`);
    const at = finiteNumber(ev.at, `event ${e} of profile ${i}'s time`);
    nanoseconds(at * t.scale, `event ${e} of profile ${i}'s time`);
    if (at < last) fail(`event ${e} of profile ${i} goes back in time (${at} after ${last})`);
    flush(at);
    if (ev.type === 'O') {
      open.push(functionOf(ev.frame, `event ${e} of profile ${i}`));
      openFrames.push(ev.frame);
    } else if (ev.type === 'C') {
      if (open.length === 0 || openFrames[openFrames.length - 1] !== ev.frame) {
        fail(`event ${e} of profile ${i} closes frame ${shown(ev.frame)}, which is not the innermost open frame`);
      }
      open.pop();
      openFrames.pop();
    } else {
      fail(`event ${e} of profile ${i} has type ${shown(ev.type)}, not "O" or "C"`);
    }
  });
  // Frames still open at the end ran until the profile's end.
  flush(finiteNumber(p.endValue, `profile ${i}'s endValue`));
}
