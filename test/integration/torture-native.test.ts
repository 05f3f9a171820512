// Torture (issue 10, "The target was harmed"): programs that change their own address space
// and process under the profiler: native libraries unloaded and replaced in the same range,
// fork, and child processes. See support/torture.ts for what every case asserts.

import assert from 'node:assert/strict';
import { SampleFlags } from '../../structs/wire/records.js';
import { NS, has, tortureCase } from './support/torture.js';

const BIG = 'libtorture_big.so';
const SMALL = 'libtorture_small.so';

tortureCase({
  scenario: 'library-swap',
  hot: [`${NS}LibrarySwap.CallBig`, `${NS}LibrarySwap.CallSmall`, `${BIG}!torture_big_spin`, `${SMALL}!torture_small_spin`],
  checkPlain: (plain) => {
    // The hazard is real only if the small library landed where the big one was, with the big
    // one's unwind table header now unreadable: say so if the loader stops doing that here.
    const fact = plain.facts[0] as { cycles: number; smallInsideBig: number; bigUnwindHeaderUnreadable: number };
    assert.ok(fact.smallInsideBig >= 0.9 * fact.cycles, `small landed inside big's old range in ${fact.smallInsideBig} of ${fact.cycles} cycles`);
    assert.ok(fact.bigUnwindHeaderUnreadable >= 0.9 * fact.cycles, `big's unwind header unreadable in ${fact.bigUnwindHeaderUnreadable} of ${fact.cycles} cycles`);
  },
  check: (p, _plain, what, intervalMs) => {
    const fact = p.outcome.facts[0] as { cycles: number; smallInsideBig: number };
    assert.ok(fact.smallInsideBig >= 0.9 * fact.cycles, `${what}: small landed inside big's old range in only ${fact.smallInsideBig} of ${fact.cycles} cycles`);
    // Native frames of a library unloaded between two ticks are not named after it: the
    // small library's code, at the big one's old addresses, is never called big's.
    // A frame named by its library alone is `[libtorture_big.so]`: named after it all the same.
    const misnamedSmall = p.samples.filter((s) => has(s, `${NS}LibrarySwap.CallSmall`) && s.frames.some((f) => f.includes(BIG)));
    const misnamedBig = p.samples.filter((s) => has(s, `${NS}LibrarySwap.CallBig`) && s.frames.some((f) => f.includes(SMALL)));
    assert.equal(misnamedSmall.length, 0, `${what}: ${misnamedSmall.length} samples under CallSmall name a frame of ${BIG}: ${misnamedSmall[0]?.frames.join(' <- ')}`);
    assert.equal(misnamedBig.length, 0, `${what}: ${misnamedBig.length} samples under CallBig name a frame of ${SMALL}: ${misnamedBig[0]?.frames.join(' <- ')}`);
    // A stack through either library is whole or says it is incomplete: never one that skipped
    // the managed caller (frame pointers through code that keeps none) and claims to be whole.
    for (const [leaf, caller] of [[`${SMALL}!torture_small_spin`, 'CallSmall'], [`${BIG}!torture_big_spin`, 'CallBig']]) {
      const wrong = p.samples.filter((s) => s.frames[0] === leaf && !(s.flags & SampleFlags.Incomplete) && !has(s, `${NS}LibrarySwap.${caller}`));
      assert.equal(wrong.length, 0, `${what}: ${wrong.length} whole stacks from ${leaf} skip ${caller}: ${wrong[0]?.frames.join(' <- ')}`);
    }
    // Walks from inside the small library reach the managed caller and the thread's root. Each
    // small library lives a few milliseconds; its unwind table is copied at the next tick, and a
    // capture before that is taken again. At 1 ms ticks nearly every walk succeeds (95-99%
    // locally); at 10 ms much of a library's life falls before the tick that would learn it, so
    // those stacks end at the library, marked incomplete (counted above as honest), and with a
    // dozen such samples a run (64-87% walked) no share is demanded.
    const inSmall = p.samples.filter((s) => s.flags & SampleFlags.Cpu && s.frames[0] === `${SMALL}!torture_small_spin`);
    const walked = inSmall.filter((s) => has(s, `${NS}LibrarySwap.CallSmall`) && !(s.flags & SampleFlags.Incomplete));
    const unwalked = inSmall.filter((s) => !walked.includes(s)).slice(0, 3).map((s) => `[flags ${s.flags}] ${s.frames.join(' <- ')}`);
    assert.ok(inSmall.length > 0, `${what}: no CPU samples in the small library`);
    console.log(`${what}: ${walked.length} of ${inSmall.length} CPU samples in the small library walked to CallSmall (${((100 * walked.length) / inSmall.length).toFixed(1)}%)`);
    if (intervalMs <= 1) {
      assert.ok(walked.length >= 0.9 * inSmall.length, `${what}: ${walked.length} of ${inSmall.length} CPU samples in the small library walked to CallSmall; for example ${unwalked.join(' | ')}`);
    }
  },
});

tortureCase({
  scenario: 'fork',
  hot: [`${NS}ForkWork.Burn`, `${NS}ForkWork.ForkLoop`, `${NS}ForkWork.SpawnLoop`],
  checkPlain: (plain) => {
    // 150 children exiting with i % 100, 20 shells exiting with i: what the program must see.
    assert.match(plain.result, /"forkExitSum":6175,"spawns":20,"spawnExitSum":190,"burnMismatches":0/);
  },
});
