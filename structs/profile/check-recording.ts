// Checks a recording's own consistency before it is exported, as google/pprof's CheckValid does
// for a profile: every sample names a known thread and an existing stack, every stack's frames
// known functions, times and values are finite and not negative, events point at what exists.
// The decoder already refuses streams that break these rules, so a problem found here is a bug
// in clrscope's model or in an importer: better a sentence than a file that misleads its reader.

import type { StackThreadSums } from './aggregate.js';
import { INCOMPLETE_STACK_FUNCTION_ID, type Recording } from './recording.js';

/** At most this many problems are listed: the first ones say what is wrong. */
const MAX_PROBLEMS = 10;

const isTime = (n: number): boolean => Number.isFinite(n) && n >= 0;

/**
 * The recording's problems, one sentence fragment each; empty when it is consistent. A
 * recording that keeps no samples (read summed, or a live model) has its `sums` checked instead.
 */
export function checkRecording(rec: Recording, sums?: StackThreadSums): string[] {
  const problems: string[] = [];
  const add = (problem: string): boolean => {
    problems.push(problem);
    return problems.length >= MAX_PROBLEMS;
  };
  const meta = rec.meta;
  if (meta !== undefined && !(isTime(meta.intervalNs) && isTime(meta.startMono))) add(`its start (${meta.startMono}) or sampling interval (${meta.intervalNs}) is not a time`);
  if (rec.sampleCount > 0 && meta === undefined) add(`it has ${rec.sampleCount} samples but no HELLO`);

  const stackCount = rec.stackCount;
  for (let s = 0; s < stackCount && problems.length < MAX_PROBLEMS; s++) {
    const functions = rec.stackFrames(s);
    if (rec.stackFrameIds(s).length !== functions.length) add(`stack ${s} has ${functions.length} functions but ${rec.stackFrameIds(s).length} frame ids`);
    for (const f of functions) {
      if (f !== INCOMPLETE_STACK_FUNCTION_ID && rec.functionInfo(f) === undefined && add(`stack ${s} names function ${f}, which is not defined`)) break;
    }
  }

  let stopped = problems.length >= MAX_PROBLEMS;
  for (const [i, sum] of (sums?.list ?? []).entries()) {
    if (stopped) break;
    if (rec.thread(sum.threadId) === undefined) stopped = add(`the sum ${i} is on thread ${sum.threadId}, which is not defined`);
    else if (!(Number.isInteger(sum.stackId) && sum.stackId >= 0 && sum.stackId < stackCount)) stopped = add(`the sum ${i} names stack ${sum.stackId} of ${stackCount}`);
    else if (!isTime(sum.cpuNs) || !isTime(sum.wallNs) || !isTime(sum.samples)) stopped = add(`the sum ${i} has ${sum.samples} samples, CPU ${sum.cpuNs} ns and wall ${sum.wallNs} ns`);
  }
  if (rec.keepsSamples) rec.forEachSample((i, mono, threadId, stackId, cpuNs, wallNs) => {
    if (stopped) return;
    if (rec.thread(threadId) === undefined) stopped = add(`sample ${i} is on thread ${threadId}, which is not defined`);
    else if (!(Number.isInteger(stackId) && stackId >= 0 && stackId < stackCount)) stopped = add(`sample ${i} names stack ${stackId} of ${stackCount}`);
    else if (!isTime(mono)) stopped = add(`sample ${i} is at ${mono}, not a time`);
    else if (!isTime(cpuNs) || !isTime(wallNs)) stopped = add(`sample ${i} has CPU ${cpuNs} ns and wall ${wallNs} ns`);
  });

  const e = rec.events();
  for (let i = 0; i < rec.eventCount && problems.length < MAX_PROBLEMS; i++) {
    if (e.stackId[i] >= stackCount) add(`event ${i} names stack ${e.stackId[i]} of ${stackCount}`);
    else if (e.threadId[i] !== 0 && rec.thread(e.threadId[i]) === undefined) add(`event ${i} is on thread ${e.threadId[i]}, which is not defined`);
    else if (!isTime(e.mono[i])) add(`event ${i} is at ${e.mono[i]}, not a time`);
  }
  for (const [i, s] of rec.suspensions().entries()) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (!isTime(s.mono) || !isTime(s.durationNs) || !isTime(s.suspendNs)) add(`runtime suspension ${i} at ${s.mono} has duration ${s.durationNs} ns and suspend ${s.suspendNs} ns`);
  }
  for (const t of rec.threads()) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (!isTime(t.firstSeenMono) && add(`thread ${t.id} was first seen at ${t.firstSeenMono}, not a time`)) break;
  }
  return problems;
}
