// Wall time's self, as PerfView's and dotTrace's users read it. A thread that waits (Thread.Sleep,
// Monitor.Wait, a socket read, a thread-pool worker with nothing to do) spends its wall time in
// the runtime's or the C library's native code, so by the innermost frame nearly all of a
// program's wall time was `[runtime]`'s, which tells nobody anything. For wall time, a sample
// whose innermost frame (after folding) is not managed code is the self time of the innermost
// frame of the program's own code (code-origin.ts) that led there: the method that waited; a
// stack without own code charges its innermost managed frame (the framework's wait, e.g. the
// thread pool's LowLevelLifoSemaphore.WaitForSignal), one without managed code its leaf. A
// sample in managed code keeps its leaf: wall time spent running is that code's, as for CPU.

import { FunctionKind } from '../wire/records.js';
import { isOwnCode } from './code-origin.js';
import type { SelfFrame } from './functions-table.js';
import type { StackSource } from './stack-source.js';

const NOT_MANAGED = 1;
const MANAGED = 2;
const OWN = 3;

/** The frame wall-time self goes to, for the frames of `stacks`. */
export function waitSelf(stacks: StackSource): SelfFrame {
  const kinds = new Map<number, number>();
  const kindOf = (id: number): number => {
    let k = kinds.get(id);
    if (k === undefined) {
      const fn = stacks.functionInfo(id);
      k = fn === undefined || fn.kind !== FunctionKind.Managed ? NOT_MANAGED : isOwnCode(fn) ? OWN : MANAGED;
      kinds.set(id, k);
    }
    return k;
  };
  return (frames) => {
    if (kindOf(frames[0]) !== NOT_MANAGED) return 0;
    let managed = -1;
    for (let i = 1; i < frames.length; i++) {
      const k = kindOf(frames[i]);
      if (k === OWN) return i;
      if (k === MANAGED && managed < 0) managed = i;
    }
    return managed < 0 ? 0 : managed;
  };
}
