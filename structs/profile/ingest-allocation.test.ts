// The ingest path allocates nothing per sample of its own. This measures JS heap allocation
// directly: heap growth outside collections (end - start + what each GC freed).
//
// Wire v1: one thing is outside our code: V8 passes a number >= 2^31 to a call it has not
// inlined as a boxed 16-byte heap number. Whether TurboFan inlines RecordingSink.onSample into the
// decoder varies from run to run (tiering order), so the three u64 doubles (mono, cpuNs, wallNs)
// are either free or cost 48 bytes of immediately-dead young garbage a sample. The bound allows
// exactly that and nothing more: any object, array or copy per sample made by our code would
// exceed it. Wire v2 hands the u64s over in a Float64Array and usually allocates nothing at all
// per sample; after a deoptimization V8 may still keep a double or two boxed for a while (seen
// in about one run in ten), so it gets the same bound.
// (decoder-allocation.test.ts holds the v2 decoder alone to zero per sample.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { feedInChunks, heapBytesAllocatedBy, probeStream, PROBE_CHUNK } from '../wire/allocation-probe.test-support.js';
import { Recording } from './recording.js';

const SAMPLES = 400_000;
// Per-chunk work (a DataView, the chunk view) may allocate, and so may per-stream work: the
// carry buffer growing once to hold a whole v2 SAMPLES record (64 KiB), the stacks defined.
const ALLOWED_PER_CHUNK = 2048;
const ALLOWED_PER_STREAM = 512 * 1024;
// Three heap numbers of 16 bytes (see above).
const BOXED_U64_BYTES = 3 * 16;

// v2 first: a process that has decoded v1 already can leave V8 running the v2 loop in a less
// optimized state (deoptimized once, then on-stack-replaced) that boxes a double per sample.
// That is the optimizer's doing, not an allocation of ours; a fresh process shows what the code does.
for (const version of [2, 1]) {
  test(`decoding wire v${version} into a Recording allocates nothing per sample beyond V8 boxing the u64 numbers (after warm-up)`, () => {
    const bytes = probeStream(version, SAMPLES);
    const chunks = Math.ceil(bytes.length / PROBE_CHUNK);
    // Long enough for the optimizing compiler to take over and for its one-off deoptimizations
    // (a path seen for the first time) to be behind.
    for (let i = 0; i < 8; i++) feedInChunks(bytes, new Recording().sink);
    let rec = new Recording();
    // The least of three measured runs: V8 sometimes deoptimizes the loop once and runs it
    // on-stack-replaced for a while, boxing doubles it would not box once reoptimized; what the
    // code itself allocates shows in every run.
    const allocated = Math.min(...[0, 1, 2].map(() => heapBytesAllocatedBy(() => {
      rec = new Recording();
      feedInChunks(bytes, rec.sink);
    })));
    assert.equal(rec.sampleCount, SAMPLES);
    assert.equal(rec.stackCount, 200);
    // Column and stack growth live in ArrayBuffers outside the JS heap.
    const perSample = (allocated - chunks * ALLOWED_PER_CHUNK - ALLOWED_PER_STREAM) / SAMPLES;
    assert.ok(perSample < BOXED_U64_BYTES, `ingest allocated ${allocated} bytes for ${SAMPLES} samples: ${perSample.toFixed(1)} B/sample beyond per-chunk and per-stream work, more than V8's boxing of the three u64 numbers (${BOXED_U64_BYTES})`);
  });
}
