// A live session's recording with every sample, rebuilt from its stream (the spool file) when
// something needs them all (an export): the main process keeps only the session's model,
// which counts samples without storing them, so an hour's recording costs its definitions, not
// 33 bytes a sample for as long as the session is open. The stream is read a step at a time,
// each step waiting for the read and then a turn, so the main process keeps answering.

import { processRecordTap } from '../../../structs/formats/clrscope-file/process-record.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { StackThreadSums } from '../../../structs/profile/aggregate.js';
import { Recording } from '../../../structs/profile/recording.js';
import { REPLAY_CHUNK_BYTES, type SessionStream } from './session-stream.js';

export type ReadBackProgress = (done: number, total: number) => void;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Decodes `stream`'s bytes as they are now into a Recording that keeps every sample. `model`
 * is the live recording the collector built from the same bytes: how it ended (an END the
 * collector added when it hung up, a stream cut short) is carried over, so the copy says what
 * the model says. A record the live decoder rejected is rejected here at the same byte; what
 * came before it is kept, as it was live.
 */
export async function recordingFromSessionStream(stream: SessionStream, model: Recording, progress?: ReadBackProgress): Promise<Recording> {
  const rec = new Recording();
  await readBack(stream, model, rec, progress);
  return rec;
}

/**
 * The same read-back for a writer that needs the samples only summed per stack and thread
 * (pprof): each step's samples are folded into `sums` and let go, so memory holds the sums and
 * the definitions, not 33 bytes a sample.
 */
export async function summedFromSessionStream(stream: SessionStream, model: Recording, progress?: ReadBackProgress): Promise<{ recording: Recording; sums: StackThreadSums }> {
  const rec = new Recording({ keepSamples: 'recent' });
  const sums = new StackThreadSums();
  await readBack(stream, model, rec, progress, () => {
    sums.add(rec.recentSamples().columns);
    rec.releaseSamples();
  });
  return { recording: rec, sums };
}

async function readBack(stream: SessionStream, model: Recording, rec: Recording, progress?: ReadBackProgress, afterStep?: () => void): Promise<void> {
  const decoder = new WireDecoder(rec.sink);
  // A stream of several processes (a launch with child processes) says whose each thread is.
  const processes = processRecordTap(rec, 'stream');
  const total = stream.length;
  let at = 0;
  let rejected = false;
  while (at < total) {
    const chunk = await stream.read(at, Math.min(REPLAY_CHUNK_BYTES, total - at));
    if (chunk.length === 0) break;
    try {
      decoder.push(chunk);
      processes.push(chunk);
    } catch {
      rejected = true;
      afterStep?.();
      break;
    }
    afterStep?.();
    at += chunk.length;
    progress?.(at, total);
    await nextTurn();
  }
  if (!model.isFinished) return;
  if (!rejected) decoder.end();
  afterStep?.();
  // The collector's own END (it hung up on a stop) is in the model, not in the stream's bytes.
  const end = model.end;
  if (!rejected && end !== undefined && rec.end === undefined && rec.meta !== undefined) rec.sink.onEnd(end);
  rec.finish();
}
