// What a launch or attach from the workstation asks the profiler for: the event switches, and
// Attach's "auto" async call stacks (issue 26): on, from the runtime's task events, when the
// process awaits little; off when they would cost it more than the 3% the feature allows itself.
// Their cost is per await (README, "Async stacks": ×1.081 of the program's CPU at 10,000
// continuations a second), and a continuation that resumed after a real wait runs as a thread-pool
// work item, so the pool's completed items a second, measured over one second of System.Runtime's
// counters before the attach, stand for the await rate. A launch has no rate to measure yet, so
// Launch keeps its own choice.

import { ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC, type AttachRequest, type LaunchRequest } from '../../../structs/api/contract.js';
import type { EventSwitches } from '../profiler/profiler-env.js';
import { EventPipeSession } from '../recording/eventpipe-session.js';

/** The event samples a launch or attach asks for; absent switches take the profiler's defaults (exceptions and locks on, allocations off). */
export function requestedEvents(request: LaunchRequest | AttachRequest): EventSwitches {
  const source = request.async === true && request.asyncSource !== undefined ? { asyncSource: request.asyncSource } : {};
  return { exceptions: request.exceptions ?? true, locks: request.locks ?? true, alloc: request.alloc ?? false, async: request.async === true, ...source };
}

/** How long the first one-second interval may take to arrive (the runtime compiles its counters' callbacks first). */
const PROBE_TIMEOUT_MS = 4000;

/**
 * Thread-pool work items the process completed a second, over the first interval of a counters-only
 * EventPipe session (its first increment covers that interval alone: event-counters-values.ts);
 * undefined when the process does not answer or sends no such counter in time.
 */
export async function workItemRate(pid: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<number | undefined> {
  let rate: number | undefined;
  let arrived: () => void = () => {};
  const first = new Promise<void>((resolve) => { arrived = resolve; });
  let session: EventPipeSession;
  try {
    session = await EventPipeSession.start({
      pid, samples: false, counterIntervalSec: 1,
      onCounter: (c) => {
        if (rate !== undefined || c.name !== 'threadpool-completed-items-count' || c.kind !== 'sum' || !(c.intervalSec > 0)) return;
        rate = c.value / c.intervalSec;
        arrived();
      },
    });
  } catch {
    return undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([first, session.ended, new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); })]);
  clearTimeout(timer);
  await session.stop().catch(() => undefined);
  return rate;
}

export interface AsyncAutoChoice {
  async: boolean;
  /** The sentence the session keeps: which, and why. */
  note: string;
}

/** On below the limit, off at or above it or when the rate is unknown; the note says which and why. */
export function asyncAutoChoice(rate: number | undefined): AsyncAutoChoice {
  const limit = ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC.toLocaleString('en-US');
  if (rate === undefined) {
    return { async: false, note: 'Async call stacks are off: the process\'s thread-pool rate could not be read before the attach (choose them in Attach\'s "async stacks").' };
  }
  const measured = Math.round(rate).toLocaleString('en-US');
  if (rate < ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC) {
    return { async: true, note: `Async call stacks are on (from the runtime's events): the process completed ${measured} thread-pool work items a second before the attach, fewer than ${limit}.` };
  }
  return { async: false, note: `Async call stacks are off: the process completed ${measured} thread-pool work items a second before the attach, where following its awaits would cost it more than 3% (choose them in Attach's "async stacks").` };
}
