// The end of a recording, read back from a session's stream for whatever writes it out: the CLI's
// `record` at the end of its run and the workstation's Export both read it here, so the rule for
// when summed samples will do is written once.

import { sumsLoseStacks } from '../../../structs/analysis/output-stacks.js';
import type { StackThreadSums } from '../../../structs/profile/aggregate.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { RecordingSession } from './recording-session.js';

/** Samples summed per stack and thread, and how to read the recording whole should a writer need every sample after all. */
export interface SummedReadBack {
  sums: StackThreadSums;
  whole: () => Promise<Recording>;
}

export interface ReadBack {
  /** With `summed`: the definitions and figures, no samples; else every sample. */
  recording: Recording;
  summed?: SummedReadBack;
}

/**
 * The session's recording, read back from its stream; undefined while nothing was recorded.
 * `sumsSuffice`: the caller's output needs the samples only summed (a pprof file, a .clrscope
 * spool moved into place): read that way a run of any length costs its sums, not 33 bytes a
 * sample. A recording with async call stacks (spliced per sample) or one whose model keeps
 * every sample anyway is read whole, as is a session that cannot sum (a file, EventPipe).
 */
export async function readBack(session: RecordingSession, sumsSuffice: boolean, progress?: (done: number, total: number) => void): Promise<ReadBack | undefined> {
  const model = session.recording;
  const whole = (): Promise<Recording | undefined> => session.recordingWithSamples(progress);
  const summable = sumsSuffice && model !== undefined && !sumsLoseStacks(model) && !model.keepsSamples && session.recordingSummed !== undefined;
  const read = summable ? await session.recordingSummed?.(progress) : undefined;
  if (read === undefined) {
    const recording = await whole();
    return recording === undefined ? undefined : { recording };
  }
  return {
    recording: read.recording,
    summed: {
      sums: read.sums,
      whole: async () => {
        const recording = await whole();
        if (recording === undefined) throw new Error('A session that summed its samples has no recording to read whole.');
        return recording;
      },
    },
  };
}
