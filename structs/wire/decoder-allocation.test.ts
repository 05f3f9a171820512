// The decoder promises no allocation per sample. This measures JS heap allocation directly:
// heap growth outside collections (end - start + what each GC freed), in processes of their own
// (decoder-allocation.test-support.ts) so no other sink class makes the decoder's call site
// polymorphic.
//
// Why more than one process: V8 settles each process on one compiled form of the hot loop, and
// in some processes (5 of 14 alone and 4 of 15 beside a build here, traced with --trace-opt
// --trace-osr; the old single-process test failed CI once) that form keeps a double boxed: 16 B a sample,
// unchanged by any number of further warm-ups in that process. That is the optimizer's choice,
// not an allocation of ours: what the code itself allocates shows in every process. So the test
// takes the least of up to six fresh processes, each warmed up and measured on its own.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Per-chunk work (a DataView, the chunk view, the carry buffer growing once per decoder) and
// per-stack work (a v2 STACK's frames) may allocate; anything per sample may not. One boxed
// number per sample would be 16 bytes a sample.
const ALLOWED_PER_SAMPLE = 2;
const PROCESSES = 6;
const probe = fileURLToPath(new URL('./decoder-allocation.test-support.js', import.meta.url));

interface Measured {
  bytes: number;
  samples: number;
  rounds: number[];
}

function measureInFreshProcess(version: number): Measured {
  const r = spawnSync(process.execPath, [probe, String(version)], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `the measuring process failed: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout.trim()) as Measured;
}

for (const version of [2, 1]) {
  test(`decoding wire v${version} samples allocates nothing per sample (after warm-up)`, () => {
    const seen: string[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const m = measureInFreshProcess(version);
      seen.push(`${(m.bytes / m.samples).toFixed(2)} B/sample (rounds ${m.rounds.join(', ')})`);
      if (m.bytes / m.samples < ALLOWED_PER_SAMPLE) return;
    }
    assert.fail(`the decoder allocated per sample in every one of ${PROCESSES} processes: ${seen.join('; ')}`);
  });
}
