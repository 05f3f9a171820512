// The decoder promises no allocation per sample. This measures JS heap allocation directly:
// heap growth outside collections (end - start + what each GC freed). It runs in its own
// process so no other sink class makes the decoder's call site polymorphic.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { feedInChunks, heapBytesAllocatedBy, probeStream, PROBE_CHUNK } from './allocation-probe.test-support.js';
import { WireDecoder, type WireSink } from './decoder.js';

const SAMPLES = 400_000;
// Per-chunk work (a DataView, the chunk view, the carry buffer growing once per decoder) and
// per-stack work (a v2 STACK's frames) may allocate; anything per sample may not. One boxed
// number per sample would be 16 bytes a sample.
const ALLOWED_PER_SAMPLE = 2;

const acc = new Float64Array(1);
const sink: WireSink = {
  onHello() {}, onThread() {}, onThreadEnd() {}, onFunction() {}, onTask() {}, onTaskSample() {}, onOperationCount() {}, onEventMessage() {}, onStats() {}, onSuspension() {}, onEnd() {}, onUnknown() {},
  onModule() {}, onFrame() {}, onStack() {}, onStackReset() {}, onString() {}, onEvent() {},
  onSample(mono, threadId, flags, cpuNs, wallNs, frames) { acc[0] += mono + threadId + flags + cpuNs + wallNs + frames[frames.length - 1]; },
  onStackSample(threadId, flags, stackId, values) { acc[0] += values[0] + threadId + flags + values[1] + values[2] + stackId; },
};

// v2 first: a process that has decoded v1 already can leave V8 running the v2 loop in a less
// optimized state (deoptimized once, then on-stack-replaced) that boxes a double per sample.
// That is the optimizer's doing, not an allocation of ours; a fresh process shows what the code does.
for (const version of [2, 1]) {
  test(`decoding wire v${version} samples allocates nothing per sample (after warm-up)`, () => {
    const bytes = probeStream(version, SAMPLES);
    const chunks = Math.ceil(bytes.length / PROBE_CHUNK);
    acc[0] = 0;
    // The least of five measured runs, after a warm-up long enough for the optimizing compiler to
    // take over and for its one-off deoptimizations (a path seen for the first time) to be behind.
    // V8 sometimes deoptimizes the loop and runs it on-stack-replaced for a while, boxing a double
    // a sample it does not box once reoptimized (16 B a sample in every one of five runs, in about
    // one process in eight here): then it gets another warm-up, up to six in all. What the code
    // itself allocates shows in every run of every round.
    const rounds: number[] = [];
    for (let round = 0; round < 6 && !(rounds.length > 0 && rounds[rounds.length - 1] / SAMPLES < ALLOWED_PER_SAMPLE); round++) {
      for (let i = 0; i < 12; i++) feedInChunks(bytes, sink);
      rounds.push(Math.min(...[0, 1, 2, 3, 4].map(() => heapBytesAllocatedBy(() => feedInChunks(bytes, sink)))));
    }
    const allocated = rounds[rounds.length - 1];
    assert.ok(allocated / SAMPLES < ALLOWED_PER_SAMPLE, `decoder allocated ${allocated} bytes for ${SAMPLES} samples in ${chunks} chunks (${(allocated / SAMPLES).toFixed(2)} B/sample; each round's least: ${rounds.join(', ')})`);
    assert.ok(acc[0] > 0);
  });
}

