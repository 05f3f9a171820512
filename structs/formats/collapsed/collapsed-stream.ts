// Collapsed-stack text in, wire stream out: how tests and benchmarks describe a profile in a
// line each (`thread;root;...;leaf VALUE`) and still exercise the real decoder and Recording.
// The inverse, FlatTree back to text, is flat-tree-text.ts.

import { WireEncoder } from '../../wire/encoder.js';
import { EndReason, FunctionKind, SampleFlags } from '../../wire/records.js';
import { frameFromLabel } from '../../profile/frame-from-label.js';

export const COLLAPSED_START_MONO = 1_000_000_000;
export const COLLAPSED_UNIX_NS = 1_700_000_000_000_000_000n;

export interface CollapsedStreamOptions {
  /** Thread names that get a THREAD_END after the last sample. */
  endedThreads?: readonly string[];
  /** Append END (default false: a stream still being recorded). */
  end?: boolean;
}

/**
 * Each line is `thread;frame;...;frame VALUE [@MS] [wall=N]`, frames root first. One line is
 * one sample of VALUE ns CPU and VALUE ns wall (or N wall), taken MS milliseconds after HELLO
 * (default: the line's 1-based number). Threads get ids 1, 2, ... in order of appearance.
 * Frames read as frameFromLabel() reads them (`module!name` and `[libfoo.so]` native, other
 * `[text]` synthetic), anything else managed, in App.dll unless
 * it names its assembly after a `|` (`System.Linq.Enumerable.ToList|System.Linq.dll`). A line with no
 * frame after the thread is a frameless (incomplete) sample. Blank lines are ignored.
 */
export function streamFromCollapsed(text: string, options: CollapsedStreamOptions = {}): Uint8Array {
  const enc = new WireEncoder().preamble().hello({
    pid: 4242, flags: 3, mono: COLLAPSED_START_MONO, unixNs: COLLAPSED_UNIX_NS, intervalNs: 1_000_000,
    wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: 'test',
  });
  const threads = new Map<string, number>();
  const functions = new Map<string, number>();
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  lines.forEach((line, index) => {
    const m = /^(.*?)\s+(\d+(?:\.\d+)?)((?:\s+(?:@\d+(?:\.\d+)?|wall=\d+))*)$/.exec(line);
    if (m === null) throw new Error(`Line ${index + 1} is not "thread;frames... VALUE": ${line}`);
    const [threadName, ...frames] = m[1].split(';');
    const value = Number(m[2]);
    const at = /@(\d+(?:\.\d+)?)/.exec(m[3]);
    const wallAt = /wall=(\d+)/.exec(m[3]);
    const ms = at === null ? index + 1 : Number(at[1]);
    const wall = wallAt === null ? value : Number(wallAt[1]);
    const mono = COLLAPSED_START_MONO + Math.round(ms * 1e6);
    let threadId = threads.get(threadName);
    if (threadId === undefined) {
      threadId = threads.size + 1;
      threads.set(threadName, threadId);
      enc.thread({ threadId, osTid: 1000 + threadId, clrThreadId: 0x5000 + threadId, mono: COLLAPSED_START_MONO, name: threadName });
    }
    const ids = frames.map((frame) => {
      let id = functions.get(frame);
      if (id === undefined) {
        id = functions.size + 1;
        functions.set(frame, id);
        enc.function({ functionId: id, ...describeFrame(frame), file: '' });
      }
      return id;
    });
    let flags = (value > 0 ? SampleFlags.Cpu : 0) | (wall > 0 ? SampleFlags.Wall : 0);
    if (ids.length === 0) flags |= SampleFlags.Incomplete;
    enc.sample({ mono, threadId, flags, cpuNs: value, wallNs: wall, frames: ids.reverse() });
  });
  const last = COLLAPSED_START_MONO + (lines.length + 1) * 1e6;
  for (const name of options.endedThreads ?? []) {
    const threadId = threads.get(name);
    if (threadId === undefined) throw new Error(`endedThreads names ${name}, which no line uses.`);
    enc.threadEnd({ threadId, mono: last });
  }
  if (options.end === true) enc.end({ mono: last, reason: EndReason.RuntimeShutdown });
  return enc.bytes().slice();
}

function describeFrame(frame: string): { kind: number; name: string; module: string } {
  const bar = frame.lastIndexOf('|');
  if (bar > 0) return { kind: FunctionKind.Managed, name: frame.slice(0, bar), module: frame.slice(bar + 1) };
  const parts = frameFromLabel(frame);
  return parts.kind === FunctionKind.Managed ? { ...parts, module: 'App.dll' } : parts;
}
