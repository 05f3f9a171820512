// Every importer builds its Recording through here: it writes the clrscope stream (what a
// .clrscope file holds) with WireEncoder and feeds it to the same decoder and model the
// collector uses, so an imported profile is checked by the same rules and the rest of
// clrscope sees one model. The stream is decoded in pieces of about 1 MiB as it is written,
// so an import never holds more than one piece of encoded bytes.
//
// Stacks are interned here, in a typed-array table, and written as explicit STACK records: the
// encoder's own interning keys each sample by a string of its frames, which cost about 100 ns
// and 70 bytes a frame (a 4 M-frame import took 3.3 s and 350 MiB). Each new stack and function
// is checked against the import budget before it is stored.

import { INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK_NAME, Recording } from '../../profile/recording.js';
import { WireDecoder } from '../../wire/decoder.js';
import { WireEncoder, type U64 } from '../../wire/encoder.js';
import { EndReason, FunctionKind, OffsetKind, SampleFlags, STACK_FLAGS } from '../../wire/records.js';
import { StackTable } from '../../profile/stack-table.js';
import {
  bytesText, counted, FILE_READ_LIMITS, ImportBudgetError, MAX_FUNCTION_TEXT_BYTES, MAX_FUNCTIONS, MAX_SAMPLES, MAX_STACK_FRAMES, MAX_STACKS, samplesClause,
} from '../../profile/read-budget.js';
import { frameFromLabel } from '../../profile/frame-from-label.js';

export interface BuilderMeta {
  /** HelloFlags: which metrics the source had. */
  flags: number;
  /** Unix epoch ns of mono 0, when the source knows it. */
  startUnixNs?: bigint;
  intervalNs?: number;
  /** Where the profile came from ("speedscope", "pprof"), shown where clrscope names its profiler's version. */
  source: string;
}

const PIECE_BYTES = 1 << 20;
const MAX_FRAMES = 0xffff;
const ELIDED_NAME = '[frames elided]';

/** The largest value a u64 field holds, as the nearest double below 2^64. */
const U64_MAX_DOUBLE = 18446744073709549568;

/**
 * A time or duration for a u64 field. Importers check their values first and say what is
 * wrong in their format's terms; past them, a value no u64 can hold (negative, NaN, beyond
 * 2^64) is clamped rather than allowed to throw from deep inside the encoder.
 */
function u64(v: number): U64 {
  if (Number.isSafeInteger(v) && v >= 0) return v;
  if (!(v > 0)) return 0;
  return BigInt(Math.round(Math.min(v, U64_MAX_DOUBLE)));
}

/** u64() as the number a stack sample carries. */
function u64Number(v: number): number {
  const r = u64(Math.round(v));
  return typeof r === 'bigint' ? Number(r) : r;
}

export class RecordingBuilder {
  private readonly enc = new WireEncoder(PIECE_BYTES + 4096);
  private readonly recording = new Recording({ limits: FILE_READ_LIMITS });
  private readonly decoder = new WireDecoder(this.recording.sink);
  private readonly functionIds = new Map<string, number>();
  private readonly threadIds = new Map<string, number>();
  private nextFunction = 1;
  private nextThread = 1;
  private lastMono = 0;
  private frameBuffer = new Uint32Array(256);
  private readonly stacks = new StackTable((frames) => this.checkStack(frames.length));
  private stackFrames = 0;
  private functionTextBytes = 0;
  // The wire stack id of the latest sample, for repeat().
  private lastStackId = 0;
  private samples = 0;

  constructor(meta: BuilderMeta) {
    this.enc.preamble().hello({
      pid: 0, flags: meta.flags, mono: 0, unixNs: meta.startUnixNs ?? 0n,
      intervalNs: Math.min(0xffffffff, Math.max(0, Math.round(meta.intervalNs ?? 0))), wallThreadsPerTick: 0,
      runtimeVersion: '', profilerVersion: meta.source,
    });
  }

  /**
   * The function id of a frame known by its display text (see frameFromLabel). The label
   * `[incomplete stack]` gives INCOMPLETE_STACK_FUNCTION_ID: as a stack's root, sample()
   * turns it back into the incomplete flag the recording had.
   */
  frame(label: string, file = '', module = '', identity?: string): number {
    if (label === INCOMPLETE_STACK_NAME && module === '') return INCOMPLETE_STACK_FUNCTION_ID;
    const parts = frameFromLabel(label, module);
    return this.function(parts.kind, parts.name, parts.module, file, identity);
  }

  /**
   * The function id of a frame with known parts; each distinct one is defined once. `identity`,
   * when the source has its own function ids, keeps apart functions that share a name (two
   * unsymbolized addresses in one library, say), as the recording that was exported had them.
   */
  function(kind: number, name: string, module: string, file: string, identity?: string): number {
    const key = identity !== undefined ? `#${identity}` : `${kind}\u0000${name}\u0000${module}\u0000${file}`;
    let id = this.functionIds.get(key);
    if (id === undefined) {
      this.checkFunction(key.length);
      id = this.nextFunction++;
      this.functionIds.set(key, id);
      this.enc.function({ functionId: id, kind, name, module, file });
      // Each function is its own frame, as the encoder's sample() would define it.
      this.enc.frame({ frameId: id, functionId: id, offsetKind: OffsetKind.None, offset: 0 });
    }
    return id;
  }

  /** The thread id for a (name, OS thread id) pair; each distinct pair is one thread. */
  thread(name: string, osTid: number): number {
    const key = `${osTid}\u0000${name}`;
    let id = this.threadIds.get(key);
    if (id === undefined) {
      id = this.nextThread++;
      this.threadIds.set(key, id);
      this.enc.thread({ threadId: id, osTid: osTid >>> 0, clrThreadId: 0, mono: 0, name });
    }
    return id;
  }

  /**
   * One sample; `frames` are ids from frame(), leaf first. A root of INCOMPLETE_STACK_FUNCTION_ID
   * becomes the incomplete flag; anywhere else it becomes an ordinary synthetic frame.
   */
  sample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, frames: ArrayLike<number>): void {
    let n = frames.length;
    if (n > 0 && frames[n - 1] === INCOMPLETE_STACK_FUNCTION_ID) {
      flags |= SampleFlags.Incomplete;
      n--;
    }
    let cut = n;
    if (n > MAX_FRAMES) {
      // The wire's limit; cut the middle as the profiler does, keeping leaf and root ends.
      cut = MAX_FRAMES;
      flags |= SampleFlags.Elided;
    }
    if (n === 0) flags |= SampleFlags.Incomplete;
    if (this.frameBuffer.length < cut + 1) this.frameBuffer = new Uint32Array(Math.max(cut + 1, this.frameBuffer.length * 2));
    const out = this.frameBuffer;
    const keepLeaf = cut === n ? n : (MAX_FRAMES - 1) >> 1;
    for (let i = 0; i < keepLeaf; i++) out[i] = this.wireFrame(frames[i]);
    if (cut !== n) {
      const keepRoot = MAX_FRAMES - 1 - keepLeaf;
      out[keepLeaf] = this.function(FunctionKind.Synthetic, ELIDED_NAME, '', '');
      for (let i = 0; i < keepRoot; i++) out[keepLeaf + 1 + i] = this.wireFrame(frames[n - keepRoot + i]);
    }
    const stackFlags = flags & STACK_FLAGS;
    // The flags are part of a stack's identity: kept as one more value at its root end.
    const before = this.stacks.count;
    const stackId = this.stacks.intern(out.subarray(0, cut), stackFlags) + 1;
    if (this.stacks.count !== before) this.enc.stack(stackId, stackFlags, out.subarray(0, cut));
    this.lastStackId = stackId;
    this.emit(mono, threadId, flags, cpuNs, wallNs);
  }

  /** One more sample of the latest sample's stack: for a source that counts repeats (a pprof row), without walking the frames again. */
  repeat(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number): void {
    if (this.lastStackId === 0) throw new RangeError('repeat() needs a sample() before it.');
    this.emit(mono, threadId, flags, cpuNs, wallNs);
  }

  private emit(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number): void {
    if (++this.samples > MAX_SAMPLES) throw new ImportBudgetError(samplesClause('it'));
    const at = Math.round(mono) > 0 ? Math.min(Math.round(mono), U64_MAX_DOUBLE) : 0;
    if (at > this.lastMono) this.lastMono = at;
    this.enc.stackSample(at, threadId, flags, u64Number(cpuNs), u64Number(wallNs), this.lastStackId);
    if (this.enc.byteLength >= PIECE_BYTES) this.flush();
  }

  private wireFrame(id: number): number {
    return id === INCOMPLETE_STACK_FUNCTION_ID ? this.function(FunctionKind.Synthetic, INCOMPLETE_STACK_NAME, '', '') : id;
  }

  /** Before a new stack is stored: one more within the import budget. */
  private checkStack(length: number): void {
    const frames = this.stackFrames + length;
    if (frames > MAX_STACK_FRAMES) {
      throw new ImportBudgetError(`its distinct stacks would hold more than ${counted(MAX_STACK_FRAMES)} frames (about ${bytesText(frames * 32)} of memory), more than clrscope reads of one file`);
    }
    if (this.stacks.count >= MAX_STACKS) throw new ImportBudgetError(`it has more than ${counted(MAX_STACKS)} distinct stacks, more than clrscope reads of one file`);
    this.stackFrames = frames;
  }

  /** Before a new function is defined: one more within the import budget. */
  private checkFunction(textBytes: number): void {
    this.functionTextBytes += textBytes;
    if (this.functionIds.size >= MAX_FUNCTIONS) throw new ImportBudgetError(`it names more than ${counted(MAX_FUNCTIONS)} distinct functions, more than clrscope reads of one file`);
    if (this.functionTextBytes > MAX_FUNCTION_TEXT_BYTES) {
      throw new ImportBudgetError(`its function names add up to more than ${bytesText(MAX_FUNCTION_TEXT_BYTES)}, more than clrscope reads of one file`);
    }
  }

  /** Ends the stream (cleanly, with END) and returns the finished Recording. */
  finish(): Recording {
    this.enc.end({ mono: u64(this.lastMono), reason: EndReason.RuntimeShutdown });
    this.flush();
    this.decoder.end();
    this.recording.finish();
    return this.recording;
  }

  private flush(): void {
    // takeBytes, not a new encoder: a v2 stream codes each sample against the ones before it.
    this.decoder.push(this.enc.takeBytes(true));
  }
}
