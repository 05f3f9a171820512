// `record --pid` through an EventPipe session (eventpipe-session.ts): record until the duration
// ends, the user interrupts or the session ends (the process exited), then stop the session and
// leave the process running, as a profiler attach would.

import type { Recording } from '../../../structs/profile/recording.js';
import { EventPipeSession } from './eventpipe-session.js';
import { processAlive } from './profiled-attach.js';
import { delay } from './profiled-launch.js';

export interface EventPipeRecordingOptions {
  pid: number;
  durationMs?: number;
  signal?: AbortSignal;
}

export interface EventPipeRecordingResult {
  /** 'ended': the runtime closed the session while the process lives on. */
  reason: 'duration' | 'interrupted' | 'exited' | 'ended';
  recording: Recording | undefined;
  problem: string | undefined;
}

export async function recordEventPipe(options: EventPipeRecordingOptions): Promise<EventPipeRecordingResult> {
  const session = await EventPipeSession.start({ pid: options.pid, samples: true });
  const deadline = options.durationMs === undefined ? Infinity : Date.now() + options.durationMs;
  let reason: EventPipeRecordingResult['reason'] = 'duration';
  for (;;) {
    if (options.signal?.aborted) {
      reason = 'interrupted';
      break;
    }
    if (session.isEnded || !processAlive(options.pid)) {
      reason = processAlive(options.pid) ? 'ended' : 'exited';
      break;
    }
    if (Date.now() >= deadline) break;
    await delay(Math.min(100, Math.max(1, deadline - Date.now())));
  }
  const outcome = await session.stop();
  if (reason === 'ended' && !processAlive(options.pid)) reason = 'exited';
  return { reason, ...outcome };
}
