// speedscope JSON -> Recording. Sampled profiles become one sample per stack with its weight;
// evented profiles (dotnet-trace's speedscope output, for one) become one sample per interval
// between consecutive open/close events, carrying the stack open during it.
//
// Each profile is a thread. Profiles clrscope wrote (exporter "clrscope…") name their thread
// and metric (`main (tid 42) · wall`), so a thread's cpu and wall profiles come back as one
// thread with both metrics. Any other profile is its own thread, named after the profile, and
// its weights count as cpu: speedscope does not say which kind of time they are. clrscope's
// exporter also says whether the CPU times were estimates (exporter-name.ts).
//
// The text is read where it lies, a value at a time (json-cursor.ts), never parsed whole: a
// large file costs its bytes and what it builds. Before anything is built, every profile is
// walked once to add up the frames its samples will hold (an evented profile's N nested opens
// ask for N²/2), and a file asking for more than the import budget is refused then.

import type { Recording } from '../../profile/recording.js';
import { HelloFlags, SampleFlags } from '../../wire/records.js';
import { RecordingBuilder } from '../import/stream-builder.js';
import {
  bytesText, counted, ImportBudgetError, MAX_FUNCTION_TEXT_BYTES, MAX_FUNCTIONS, MAX_SAMPLE_FRAMES, MAX_SAMPLES, sampleFramesClause, samplesClause,
} from '../../profile/read-budget.js';
import { JSON_ARRAY, JSON_OBJECT, JsonCursor, JsonSyntaxError, JsonTooDeepError, jsonKeys } from './json-cursor.js';
import { parseExporter } from './exporter-name.js';
import { ASYNC_PROFILE_PREFIX, ENDPOINT_PROFILE_PREFIX, EVENT_PROFILE_PREFIX, parseProfileName, type TimeMetric } from './profile-name.js';
import { SPEEDSCOPE_UNITS, nanosecondsPer, type SpeedscopeUnit } from './speedscope-file.js';
import { SpeedscopeFormatError } from './speedscope-format-error.js';
import { EventColumns } from './event-columns.js';

/** clrscope's profiles of every thread summed per stack, which repeat or are not the per-thread samples. */
const SUMMED_PREFIXES = [EVENT_PROFILE_PREFIX, ASYNC_PROFILE_PREFIX, ENDPOINT_PROFILE_PREFIX];

/** HELLO.profilerVersion of a profile another tool wrote; clrscope's own keep their `exporter`, less its estimated-CPU mark. */
export const SPEEDSCOPE_IMPORT_SOURCE = 'speedscope import';

/** More frames than this in shared.frames is not a profile (each costs 4 bytes of offsets before any is read). */
export const MAX_SHARED_FRAMES = 8_000_000;
/** More profiles than this is not a profile either: each is a thread. */
export const MAX_PROFILES = 100_000;

function fail(why: string): never {
  throw new SpeedscopeFormatError(`Not a readable speedscope file: ${why}.`);
}

/**
 * Where the text stops being JSON, without quoting it: a message must never carry the content
 * of whatever file someone asked clrscope to open.
 */
function jsonProblem(err: JsonSyntaxError, bytes: Uint8Array): string {
  let blank = true;
  for (let i = 0; i < bytes.length && blank; i++) blank = bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09;
  if (blank) return 'it is empty';
  if (err.endsEarly) return 'it ends too early';
  if (err.at === 0) return 'it does not start as JSON does';
  return `it breaks off at byte ${err.at}`;
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

/** A profile's fields; its lists by their offsets in the text (-1: absent), read when needed. */
interface ProfileHead {
  type: unknown;
  name: unknown;
  unit: unknown;
  startValue: unknown;
  endValue: unknown;
  events: number;
  samples: number;
  weights: number;
}

interface ProfileTarget {
  threadId: number;
  metric: TimeMetric;
  /** ns per unit of this profile's values. */
  scale: number;
  /** ns from the earliest profile's start to this profile's start. */
  offsetNs: number;
}

/** Samples, and frames summed over them, built so far (or planned), against the import budget. */
interface FrameBudget {
  samples: number;
  frames: number;
}

const TOP_KEYS = jsonKeys('shared', 'profiles', 'exporter');
const SHARED_KEYS = jsonKeys('frames');
const FRAME_KEYS = jsonKeys('name', 'file');
const PROFILE_KEYS = jsonKeys('type', 'name', 'unit', 'startValue', 'endValue', 'events', 'samples', 'weights');
const EVENT_KEYS = jsonKeys('type', 'frame', 'at');

/** speedscope JSON (its bytes, its text, or the parsed object) -> Recording. */
export function fromSpeedscope(input: Uint8Array | string | unknown): Recording {
  const bytes = input instanceof Uint8Array ? input : new TextEncoder().encode(typeof input === 'string' ? input : (JSON.stringify(input) ?? ''));
  try {
    return read(new JsonCursor(bytes));
  } catch (err) {
    if (err instanceof JsonSyntaxError) fail(`the text is not valid JSON (${jsonProblem(err, bytes)})`);
    if (err instanceof JsonTooDeepError) fail(`${err.message} at byte ${err.at}, deeper than any profile`);
    if (err instanceof ImportBudgetError) fail(err.message);
    throw err;
  }
}

function read(c: JsonCursor): Recording {
  if (c.kind() !== 'object') {
    c.skip();
    c.end();
    fail('the JSON is not an object');
  }
  let sharedAt = -1;
  let heads: ProfileHead[] | undefined;
  let exporterValue: unknown;
  if (c.open(JSON_OBJECT)) {
    do {
      const key = c.keyIndex(TOP_KEYS);
      c.peek();
      if (key === 0) sharedAt = c.pos;
      // The profiles' own fields are read on this first pass; their lists are only stepped over.
      if (key === 1 && c.kind() === 'array') heads = profileHeads(c);
      else if (key === 2) exporterValue = c.scalar();
      else c.skip();
    } while (c.next(JSON_OBJECT));
  }
  c.end();

  const frameOffsets = sharedFrames(c, sharedAt);
  if (heads === undefined) fail('it has no profiles list');
  const exporter = parseExporter(exporterValue);
  const ours = exporter.ours;

  let starts = Number.POSITIVE_INFINITY;
  let flags = exporter.approximateCpu ? HelloFlags.ApproximateCpu : 0;
  const skipped = (p: ProfileHead): boolean => ours && typeof p.name === 'string' && SUMMED_PREFIXES.some((prefix) => (p.name as string).startsWith(prefix));
  heads.forEach((p, i) => {
    if (p.type !== 'sampled' && p.type !== 'evented') fail(`profile ${i} has type ${shown(p.type)}, not "sampled" or "evented"`);
    if (!SPEEDSCOPE_UNITS.includes(p.unit as SpeedscopeUnit)) fail(`profile ${i} has unit ${shown(p.unit)}, not one of ${SPEEDSCOPE_UNITS.join(', ')}`);
    const scale = nanosecondsPer(p.unit as SpeedscopeUnit) ?? 1;
    const start = nanoseconds(finiteNumber(p.startValue, `profile ${i}'s startValue`) * scale, `profile ${i}'s startValue`);
    nanoseconds(finiteNumber(p.endValue, `profile ${i}'s endValue`) * scale, `profile ${i}'s endValue`);
    starts = Math.min(starts, start);
    if (skipped(p)) return;
    const identity = ours && typeof p.name === 'string' ? parseProfileName(p.name) : undefined;
    flags |= identity?.metric === 'wall' ? HelloFlags.Wall : HelloFlags.Cpu;
  });

  // First the plan: every profile walked, its frames added up, nothing built.
  const planned: FrameBudget = { samples: 0, frames: 0 };
  const frameCount = frameOffsets.length;
  const checkIndex = (index: unknown, where: () => string): number => {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= frameCount) {
      fail(`${where()} names frame ${shown(index)}, but shared.frames has ${frameCount}`);
    }
    return index;
  };
  // Which frames the samples name: each becomes a function, with its name, when built.
  const named = new Uint8Array(frameCount);
  const planIndex = (index: unknown, where: () => string): number => {
    const at = checkIndex(index, where);
    named[at] = 1;
    return at;
  };
  const events = new Map<number, EventColumns>();
  heads.forEach((p, i) => {
    if (skipped(p)) return;
    const scale = nanosecondsPer(p.unit as SpeedscopeUnit) ?? 1;
    if (p.type === 'sampled') sampled(c, p, i, scale, planIndex, null, planned);
    else events.set(i, readEvents(c, p, i, scale, planIndex, planned));
  });
  planFunctions(c, frameOffsets, named);

  const builder = new RecordingBuilder({ flags, source: ours ? exporter.source : SPEEDSCOPE_IMPORT_SOURCE });
  const frameIds = new Uint32Array(frameCount);
  const nameCursor = new JsonCursor(c.bytes);
  const functionOf = (index: unknown, where: () => string): number => {
    const at = checkIndex(index, where);
    let id = frameIds[at];
    if (id === 0) {
      const frame = frameAt(nameCursor, frameOffsets[at]);
      if (frame === undefined) fail(`frame ${at} has no name`);
      id = builder.frame(frame.name, frame.file);
      frameIds[at] = id;
    }
    return id;
  };
  const built: FrameBudget = { samples: 0, frames: 0 };
  heads.forEach((p, i) => {
    // clrscope's event profiles (`events · alloc-space`) are sums with no time or thread: not samples;
    // its async profiles (`async stacks · cpu`) are the same samples again, seen through their tasks,
    // and its endpoint profiles (`endpoint · GET /cpu/{ms} · cpu`) some of them again.
    if (skipped(p)) return;
    const name = typeof p.name === 'string' ? p.name : `profile ${i}`;
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
    const build = { builder, target };
    if (p.type === 'sampled') sampled(c, p, i, scale, functionOf, build, built);
    else evented(events.get(i) as EventColumns, p, scale, functionOf, build);
  });
  return builder.finish();
}

/** The offsets of shared.frames' entries: frames are read when a sample first names them. */
function sharedFrames(c: JsonCursor, sharedAt: number): Uint32Array {
  let framesAt = -1;
  if (sharedAt >= 0 && c.at(sharedAt).kind() === 'object' && c.open(JSON_OBJECT)) {
    do {
      const key = c.keyIndex(SHARED_KEYS);
      c.peek();
      if (key === 0) framesAt = c.kind() === 'array' ? c.pos : -1;
      c.skip();
    } while (c.next(JSON_OBJECT));
  }
  if (framesAt < 0) fail('it has no shared.frames list');
  let offsets = new Uint32Array(1024);
  let n = 0;
  if (c.at(framesAt).open(JSON_ARRAY)) {
    do {
      if (n === MAX_SHARED_FRAMES) fail(`shared.frames lists more than ${counted(MAX_SHARED_FRAMES)} frames, more than clrscope reads`);
      if (n === offsets.length) {
        const grown = new Uint32Array(n * 2);
        grown.set(offsets);
        offsets = grown;
      }
      c.peek();
      offsets[n++] = c.pos;
      c.skip();
    } while (c.next(JSON_ARRAY));
  }
  return offsets.subarray(0, n);
}

function frameAt(c: JsonCursor, offset: number): { name: string; file: string } | undefined {
  if (c.at(offset).kind() !== 'object') return undefined;
  let name: unknown;
  let file: unknown;
  if (c.open(JSON_OBJECT)) {
    do {
      const key = c.keyIndex(FRAME_KEYS);
      if (key === 0) name = c.scalar();
      else if (key === 1) file = c.scalar();
      else c.skip();
    } while (c.next(JSON_OBJECT));
  }
  if (typeof name !== 'string') return undefined;
  return { name, file: typeof file === 'string' ? file : '' };
}

/** The profiles list at the cursor, each profile's fields; the cursor ends past the list. */
function profileHeads(c: JsonCursor): ProfileHead[] {
  const heads: ProfileHead[] = [];
  if (!c.open(JSON_ARRAY)) return heads;
  do {
    const i = heads.length;
    if (i === MAX_PROFILES) fail(`it has more than ${counted(MAX_PROFILES)} profiles, more than clrscope reads`);
    if (c.kind() !== 'object') fail(`profile ${i} is not an object`);
    const p: ProfileHead = { type: undefined, name: undefined, unit: undefined, startValue: undefined, endValue: undefined, events: -1, samples: -1, weights: -1 };
    if (c.open(JSON_OBJECT)) {
      do {
        const key = c.keyIndex(PROFILE_KEYS);
        c.peek();
        switch (key) {
          case 0: p.type = c.scalar(); break;
          case 1: p.name = c.scalar(); break;
          case 2: p.unit = c.scalar(); break;
          case 3: p.startValue = c.scalar(); break;
          case 4: p.endValue = c.scalar(); break;
          case 5: p.events = c.pos; c.skip(); break;
          case 6: p.samples = c.pos; c.skip(); break;
          case 7: p.weights = c.pos; c.skip(); break;
          default: c.skip();
        }
      } while (c.next(JSON_OBJECT));
    }
    heads.push(p);
  } while (c.next(JSON_ARRAY));
  return heads;
}

/** A frame index's function (or, planning, the index checked); `where` names the sample or event for a message, only when one is needed. */
type FunctionOf = (index: unknown, where: () => string) => number;

/** What a walk builds into; null when it only plans (checks the profile and adds up its frames). */
type Build = { builder: RecordingBuilder; target: ProfileTarget } | null;

function emit(build: NonNullable<Build>, atNs: number, valueNs: number, leafFirst: number[]): void {
  const t = build.target;
  const cpu = t.metric === 'cpu';
  build.builder.sample(t.offsetNs + atNs, t.threadId, cpu ? SampleFlags.Cpu : SampleFlags.Wall, cpu ? valueNs : 0, cpu ? 0 : valueNs, leafFirst);
}

/**
 * The functions the named frames will make, and the bytes of their names, against the budget:
 * counted from the text before any is decoded (a frame's name may be 45 MB).
 */
function planFunctions(c: JsonCursor, frameOffsets: Uint32Array, named: Uint8Array): void {
  let functions = 0;
  let textBytes = 0;
  for (let at = 0; at < named.length; at++) {
    if (named[at] === 0) continue;
    if (++functions > MAX_FUNCTIONS) fail(`its samples name more than ${counted(MAX_FUNCTIONS)} distinct frames, the most clrscope reads of one file`);
    if (c.at(frameOffsets[at]).kind() !== 'object' || !c.open(JSON_OBJECT)) continue;
    do {
      const key = c.keyIndex(FRAME_KEYS);
      if (key >= 0 && c.kind() === 'string') textBytes += c.stringBytes();
      else c.skip();
    } while (c.next(JSON_OBJECT));
    if (textBytes > MAX_FUNCTION_TEXT_BYTES) fail(`the names of the frames its samples name add up to more than ${bytesText(MAX_FUNCTION_TEXT_BYTES)}, the most clrscope reads of one file`);
  }
}

/** One more sample of `frames` frames, against the budget; `deep(i, frames)` says whose samples would hold too many. */
function spend(budget: FrameBudget, frames: number, i: number, deep: (i: number, frames: number) => string): void {
  budget.frames += frames;
  if (budget.frames > MAX_SAMPLE_FRAMES) fail(sampleFramesClause(deep(i, frames)));
  if (++budget.samples > MAX_SAMPLES) fail(samplesClause(`the samples of profile ${i}`));
}

const sampledDeep = (i: number): string => `the samples of profile ${i}`;
const eventedDeep = (i: number, open: number): string => `evented profile ${i} opens frames so deeply (${counted(open)} at once) that its samples`;

/** The number of entries of the list at `at` (a list, checked by the caller). */
function listLength(c: JsonCursor, at: number): number {
  let n = 0;
  if (c.at(at).open(JSON_ARRAY)) {
    do {
      c.skip();
      n++;
    } while (c.next(JSON_ARRAY));
  }
  return n;
}

function sampled(c: JsonCursor, p: ProfileHead, i: number, scale: number, functionOf: FunctionOf, build: Build, budget: FrameBudget): void {
  if (p.samples < 0 || p.weights < 0 || c.at(p.samples).kind() !== 'array' || c.at(p.weights).kind() !== 'array') {
    fail(`sampled profile ${i} lacks its samples or weights list`);
  }
  // Walked in step with the samples; the lists' lengths are counted only when they differ.
  const w = new JsonCursor(c.bytes);
  const differ = (): never => fail(`sampled profile ${i} has ${listLength(c, p.samples)} samples but ${listLength(w, p.weights)} weights`);
  const samplesLeft = c.at(p.samples).open(JSON_ARRAY);
  if (w.at(p.weights).open(JSON_ARRAY) !== samplesLeft) differ();
  if (!samplesLeft) return;
  let at = 0;
  const stack: number[] = [];
  const leafFirst: number[] = [];
  const indexes = { values: new Int32Array(256) };
  let s = 0;
  for (;;) {
    if (c.kind() !== 'array') fail(`sample ${s} of profile ${i} is not a list of frame indexes`);
    const weightValue = w.kind() === 'number' ? w.number() : w.scalar();
    // Messages are made only when needed: a template a sample is garbage by the million.
    const weight = typeof weightValue === 'number' && Number.isFinite(weightValue) ? weightValue : finiteNumber(weightValue, `weight ${s} of profile ${i}`);
    if (weight < 0) fail(`weight ${s} of profile ${i} is negative`);
    if (!(Math.abs(at + weight * scale) <= MAX_NS)) nanoseconds(at + weight * scale, `the end of sample ${s} of profile ${i}`);
    stack.length = 0;
    const where = (): string => `sample ${s} of profile ${i}`;
    const n = c.indexList(indexes);
    let depth = n;
    if (n >= 0 && build === null) {
      // Planning: each index checked (and marked named), no stack made.
      for (let k = 0; k < n; k++) functionOf(indexes.values[k], where);
    } else if (n >= 0) {
      for (let k = 0; k < n; k++) stack.push(functionOf(indexes.values[k], where));
    } else {
      if (c.open(JSON_ARRAY)) {
        do stack.push(functionOf(c.kind() === 'number' ? c.number() : c.scalar(), where));
        while (c.next(JSON_ARRAY));
      }
      depth = stack.length;
    }
    spend(budget, depth, i, sampledDeep);
    if (build !== null) {
      leafFirst.length = stack.length;
      for (let k = 0; k < stack.length; k++) leafFirst[k] = stack[stack.length - 1 - k];
      emit(build, at, weight * scale, leafFirst);
    }
    // speedscope lays a sampled profile's samples end to end by weight; so do the timestamps.
    at += weight * scale;
    s++;
    const moreSamples = c.next(JSON_ARRAY);
    if (w.next(JSON_ARRAY) !== moreSamples) differ();
    if (!moreSamples) return;
  }
}

/**
 * Reads an evented profile's events once, checking them and adding up the samples their
 * intervals make and the frames those hold: 13 bytes an event, so the text is not parsed again
 * to build.
 */
function readEvents(c: JsonCursor, p: ProfileHead, i: number, scale: number, planIndex: FunctionOf, budget: FrameBudget): EventColumns {
  if (p.events < 0 || c.at(p.events).kind() !== 'array') fail(`evented profile ${i} lacks its events list`);
  const columns = new EventColumns();
  const open: number[] = [];
  let last = p.startValue as number;
  const flush = (until: number): void => {
    if (until > last && open.length > 0) spend(budget, open.length, i, eventedDeep);
    if (until > last) last = until;
  };
  let e = 0;
  const eventWhere = (): string => `event ${e} of profile ${i}`;
  if (c.open(JSON_ARRAY)) {
    do {
      if (c.kind() !== 'object') fail(`event ${e} of profile ${i} is not an object`);
      let type: unknown;
      let frame: unknown;
      let atValue: unknown;
      if (c.open(JSON_OBJECT)) {
        do {
          const key = c.keyIndex(EVENT_KEYS);
          if (key === 0) type = c.scalar();
          else if (key === 1) frame = c.kind() === 'number' ? c.number() : c.scalar();
          else if (key === 2) atValue = c.kind() === 'number' ? c.number() : c.scalar();
          else c.skip();
        } while (c.next(JSON_OBJECT));
      }
      // Messages are made only when needed: a template an event is garbage by the million.
      const at = typeof atValue === 'number' && Number.isFinite(atValue) ? atValue : finiteNumber(atValue, `event ${e} of profile ${i}'s time`);
      if (!(Math.abs(at * scale) <= MAX_NS)) nanoseconds(at * scale, `event ${e} of profile ${i}'s time`);
      if (at < last) fail(`event ${e} of profile ${i} goes back in time (${at} after ${last})`);
      flush(at);
      if (type === 'O') {
        open.push(planIndex(frame, eventWhere));
        columns.push(true, open[open.length - 1], at);
      } else if (type === 'C') {
        if (open.length === 0 || open[open.length - 1] !== frame) {
          fail(`event ${e} of profile ${i} closes frame ${shown(frame)}, which is not the innermost open frame`);
        }
        columns.push(false, open.pop() as number, at);
      } else {
        fail(`event ${e} of profile ${i} has type ${shown(type)}, not "O" or "C"`);
      }
      e++;
    } while (c.next(JSON_ARRAY));
  }
  // Frames still open at the end run until the profile's end.
  flush(finiteNumber(p.endValue, `profile ${i}'s endValue`));
  return columns;
}

const noWhere = (): string => '';

/** Builds an evented profile's samples from its events as readEvents() checked them. */
function evented(events: EventColumns, p: ProfileHead, scale: number, functionOf: FunctionOf, build: NonNullable<Build>): void {
  const start = p.startValue as number;
  const open: number[] = [];
  const leafFirst: number[] = [];
  let last = start;
  const flush = (until: number): void => {
    if (until > last && open.length > 0) {
      leafFirst.length = open.length;
      for (let k = 0; k < open.length; k++) leafFirst[k] = open[open.length - 1 - k];
      emit(build, (last - start) * scale, (until - last) * scale, leafFirst);
    }
    if (until > last) last = until;
  };
  for (let e = 0; e < events.count; e++) {
    flush(events.at[e]);
    if (events.opens[e] === 1) open.push(functionOf(events.frames[e], noWhere));
    else open.pop();
  }
  flush(p.endValue as number);
}
