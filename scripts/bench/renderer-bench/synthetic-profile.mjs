// A synthetic profile shaped like a real one, written through the real wire encoder: 40
// thread entry trunks split among 4 thread roles, each new distinct stack a copy of an earlier
// stack's outer part with a few new inner frames (real stacks differ near the leaf), and
// skewed popularity (a few hot stacks take most samples).
import { WireEncoder } from '../../../structs/wire/encoder.ts';

export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Distinct stacks (root first, as arrays of function ids) and the thread role of each. */
export function makeStacks({ stacks, depth, functions, seed = 0x2545f491 }) {
  const rand = rng(seed);
  const pick = (n) => Math.floor(rand() * n);
  const trunks = Array.from({ length: 40 }, () => Array.from({ length: 6 }, () => 1 + pick(functions)));
  const seen = new Set();
  const out = [];
  const role = [];
  while (out.length < stacks) {
    let rootFirst;
    let r;
    if (out.length < 40 || rand() < 0.02) {
      const t = pick(trunks.length);
      rootFirst = trunks[t].slice();
      r = t % 4;
    } else {
      const o = pick(out.length);
      // Keep all but a geometric number (mean ~6) of the inner frames.
      let cut = 1;
      while (rand() < 0.83 && cut < depth - 6) cut++;
      rootFirst = out[o].slice(0, depth - cut);
      r = role[o];
    }
    while (rootFirst.length < depth) rootFirst.push(1 + pick(functions));
    const key = rootFirst.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(rootFirst);
    role.push(r);
  }
  return { stacks: out, role };
}

export function functionName(f) {
  return `Contoso.Module${f % 13}.Services.Type${f % 97}.Method${f}`;
}

/**
 * The whole stream as one Uint8Array: HELLO, 16 threads (4 per role), the functions, then
 * `samples` SAMPLE records 1/1600 s apart, CPU and wall.
 */
export function synthesizeStream({ samples, depth, stacks: stackCount, functions, seed }) {
  const { stacks, role } = makeStacks({ stacks: stackCount, depth, functions, seed });
  const leafFirst = stacks.map((s) => Uint32Array.from(s).reverse());
  const rand = rng(seed ^ 0x9e3779b9);
  const enc = new WireEncoder(samples * (36 + 4 * depth) + functions * 80 + 4096);
  const mono0 = 1_000_000_000;
  enc.preamble().hello({ pid: 1, flags: 3, mono: mono0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: 'bench' });
  for (let t = 1; t <= 16; t++) enc.thread({ threadId: t, osTid: 1000 + t, clrThreadId: 0x7f0000000000 + t, mono: mono0, name: `role${(t - 1) % 4}-worker-${t}` });
  for (let f = 1; f <= functions; f++) {
    enc.function({ functionId: f, kind: f % 10 === 0 ? 1 : 0, name: functionName(f), module: f % 10 === 0 ? 'libcoreclr.so' : 'Contoso.dll', file: '' });
  }
  const s = { mono: 0, threadId: 0, flags: 3, cpuNs: 0, wallNs: 0, frames: leafFirst[0] };
  for (let i = 0; i < samples; i++) {
    const r = rand();
    const k = Math.floor(r * r * r * leafFirst.length);
    s.frames = leafFirst[k];
    s.threadId = 1 + role[k] + 4 * Math.floor(rand() * 4);
    s.mono = mono0 + Math.floor(i * 625_000);
    s.cpuNs = 9_000_000 + Math.floor(rand() * 2_000_000);
    s.wallNs = 10_000_000;
    enc.sample(s);
  }
  return enc.bytes();
}
