// Records a process that was started without clrscope: attach, record until the duration ends,
// the user interrupts or the process exits, then detach and leave it running.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import { delay } from './profiled-launch.js';
import { attachProfiled } from './profiled-attach.js';
import type { EventSwitches } from '../profiler/profiler-env.js';

export interface AttachRecordingOptions {
  pid: number;
  intervalMs: number;
  wall: boolean;
  libraryPath: string;
  events?: EventSwitches;
  durationMs?: number;
  signal?: AbortSignal;
  /** Raw bytes of the stream as they arrive (the spool). */
  onChunk?: ChunkListener;
}

export interface AttachRecordingResult {
  reason: 'duration' | 'interrupted' | 'exited';
  stream: CollectedStream;
}

export async function recordAttach(options: AttachRecordingOptions): Promise<AttachRecordingResult> {
  const attach = await attachProfiled({ ...options, cpu: true });
  const deadline = options.durationMs === undefined ? Infinity : Date.now() + options.durationMs;
  let reason: AttachRecordingResult['reason'] = 'duration';
  for (;;) {
    if (options.signal?.aborted) {
      reason = 'interrupted';
      break;
    }
    if (!attach.alive() || attach.stream.state !== 'open') {
      reason = 'exited';
      break;
    }
    if (Date.now() >= deadline) break;
    await delay(Math.min(100, Math.max(1, deadline - Date.now())));
  }
  await attach.detach();
  return { reason, stream: attach.stream };
}
