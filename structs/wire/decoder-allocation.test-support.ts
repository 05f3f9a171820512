// One measurement of the decoder's heap allocation per sample, in a process of its own
// (decoder-allocation.test.ts starts it): `node decoder-allocation.test-support.js <version>`
// prints {"bytes": n, "samples": n, "rounds": [...]} on one line.

import { feedInChunks, heapBytesAllocatedBy, probeStream } from './allocation-probe.test-support.js';
import type { WireSink } from './decoder.js';

const SAMPLES = 400_000;
// Below this a round counts as allocation-free (see decoder-allocation.test.ts).
const ALLOWED_PER_SAMPLE = 2;

const acc = new Float64Array(1);
// The only sink class this process ever sees, so the decoder's call sites stay monomorphic.
const sink: WireSink = {
  onHello() {}, onThread() {}, onThreadEnd() {}, onFunction() {}, onTask() {}, onTaskSample() {}, onOperationCount() {}, onRequestSample() {}, onRequestBackfill() {}, onEventMessage() {}, onStats() {}, onTimeline() {}, onEnd() {}, onUnknown() {},
  onModule() {}, onFrame() {}, onStack() {}, onStackReset() {}, onString() {}, onEvent() {},
  onSample(mono, threadId, flags, cpuNs, wallNs, frames) { acc[0] += mono + threadId + flags + cpuNs + wallNs + frames[frames.length - 1]; },
  onStackSample(threadId, flags, stackId, values) { acc[0] += values[0] + threadId + flags + values[1] + values[2] + stackId; },
};

const version = Number(process.argv[2]);
const bytes = probeStream(version, SAMPLES);
// The least of five measured runs, after a warm-up long enough for the optimizing compiler to
// take over and for its one-off deoptimizations (a path seen for the first time) to be behind;
// a second round after another warm-up if the first did allocate.
const rounds: number[] = [];
for (let round = 0; round < 2 && !(rounds.length > 0 && rounds[rounds.length - 1] / SAMPLES < ALLOWED_PER_SAMPLE); round++) {
  for (let i = 0; i < 12; i++) feedInChunks(bytes, sink);
  rounds.push(Math.min(...[0, 1, 2, 3, 4].map(() => heapBytesAllocatedBy(() => feedInChunks(bytes, sink)))));
}
if (!(acc[0] > 0)) throw new Error('the sink saw no samples');
process.stdout.write(`${JSON.stringify({ bytes: rounds[rounds.length - 1], samples: SAMPLES, rounds })}\n`);
