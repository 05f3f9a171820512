// A recording with its stacks folded, for exports the user wants folded: the same samples
// (time, thread, values, flags), threads, pauses and statistics, each stack replaced by its
// folded one. Built by replaying the recording into a new one, so every exporter and reader
// sees an ordinary Recording.

import { INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK_NAME, Recording } from '../profile/recording.js';
import { FunctionKind, SampleFlags } from '../wire/records.js';
import { TIMELINE_KINDS } from '../wire/timeline/timeline-kinds.js';
import { isNoFold, type FoldOptions } from './fold-options.js';
import { FoldedStacks } from './fold.js';

export function foldRecording(rec: Recording, options: FoldOptions): Recording {
  if (isNoFold(options)) return rec;
  const meta = rec.meta;
  const out = new Recording();
  if (meta === undefined) return out;
  out.sink.onHello({
    pid: meta.pid, flags: meta.flags, mono: meta.startMono, unixNs: meta.startUnixNs, intervalNs: meta.intervalNs,
    wallThreadsPerTick: meta.wallThreadsPerTick, runtimeVersion: meta.runtimeVersion, profilerVersion: meta.profilerVersion,
  });
  const threads = rec.threads();
  for (const t of threads) out.sink.onThread({ threadId: t.id, osTid: t.osTid, clrThreadId: t.clrThreadId, mono: t.firstSeenMono, name: t.name });
  const folded = new FoldedStacks(rec, options);
  // Folded frame f is function f + 1 (writers never use 0); the incomplete marker is the flag again.
  const defined = new Set<number>();
  const framesOf: (Uint32Array | null)[] = [];
  const marker = (frame: number): boolean => {
    const fn = folded.functionInfo(frame);
    return fn !== undefined && fn.kind === FunctionKind.Synthetic && fn.name === INCOMPLETE_STACK_NAME;
  };
  const wireFrames = (stackId: number): Uint32Array => {
    let frames = framesOf[stackId];
    if (frames === undefined || frames === null) {
      const f = folded.stackFrames(folded.ofStack(stackId));
      const n = f.length > 0 && marker(f[f.length - 1]) ? f.length - 1 : f.length;
      frames = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const id = f[i] + 1;
        if (id === INCOMPLETE_STACK_FUNCTION_ID) throw new Error('A folded recording has more frames than function ids.');
        if (!defined.has(id)) {
          const fn = folded.functionInfo(f[i])!;
          out.sink.onFunction({ functionId: id, kind: fn.kind, name: fn.name, module: fn.module, file: fn.file, moduleId: 0, token: 0 });
          defined.add(id);
        }
        frames[i] = id;
      }
      framesOf[stackId] = frames;
    }
    return frames;
  };
  const { mono, threadId, stackId, cpuNs, wallNs, flags } = rec.sampleColumns();
  for (let i = 0; i < mono.length; i++) {
    const frames = wireFrames(stackId[i]);
    const recorded = rec.stackFrames(stackId[i]);
    const incomplete = recorded.length > 0 && recorded[recorded.length - 1] === INCOMPLETE_STACK_FUNCTION_ID;
    out.sink.onSample(mono[i], threadId[i], incomplete ? flags[i] | SampleFlags.Incomplete : flags[i] & ~SampleFlags.Incomplete, cpuNs[i], wallNs[i], frames);
  }
  for (const t of threads) if (t.ended) out.sink.onThreadEnd({ threadId: t.id, mono: t.lastSeenMono });
  for (const kind of TIMELINE_KINDS) for (const r of rec.timeline(kind)) out.sink.onTimeline(kind, r);
  if (rec.stats !== undefined) out.sink.onStats({ ...rec.stats });
  if (rec.end !== undefined) out.sink.onEnd({ ...rec.end });
  out.finish();
  return out;
}
