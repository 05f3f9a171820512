// CPU that came in without a stack of its own: the profiler charges a thread's CPU that no
// capture brought in (the thread blocked the capture signal, or a capture was lost) from the
// thread's clock, under a synthetic leaf frame that says why, above the thread's last stack
// (native-profiler/core/unanswered_cpu.cpp). One definition for every view that says how
// much of it there was.

import { sumByStack } from './aggregate.js';
import { frameLabel } from './frame-label.js';
import type { Recording } from './recording.js';

/** The leaf frames the profiler names such CPU with ("[CPU without a stack: signal blocked]", "… not captured"). */
export const STACKLESS_CPU_PREFIX = '[CPU without a stack';

export function isStacklessCpuFrame(label: string): boolean {
  return label.startsWith(STACKLESS_CPU_PREFIX);
}

/** Whether stack `stackId` of `rec` ends (at its leaf) in such a frame. */
export function isStacklessCpuStack(rec: Pick<Recording, 'stackFrames' | 'functionInfo'>, stackId: number): boolean {
  const frames = rec.stackFrames(stackId);
  if (frames.length === 0) return false;
  const fn = rec.functionInfo(frames[0]);
  return fn !== undefined && isStacklessCpuFrame(frameLabel(fn));
}

/** Nanoseconds of CPU under such a leaf frame. `cpuByStack`: the CPU summed per stack id, when `rec` keeps no samples. */
export function stacklessCpuNs(rec: Recording, cpuByStack?: Float64Array): number {
  const sums = cpuByStack ?? sumByStack(rec, 'cpu');
  let total = 0;
  for (let stack = 0; stack < sums.length; stack++) {
    if (sums[stack] !== 0 && isStacklessCpuStack(rec, stack)) total += sums[stack];
  }
  return total;
}
