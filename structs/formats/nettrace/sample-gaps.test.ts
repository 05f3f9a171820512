import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kthSmallest, sampleGaps } from './sample-gaps.js';

/** The first version (a Map per thread, a number[] sorted with a comparator): the rewrite must give the same values. */
function reference(timeNs: Float64Array, thread: Uint32Array, count: number, order: Uint32Array | undefined, fallbackNs: number): { wallNs: number[]; typicalNs: number } {
  const last = new Map<number, number>();
  const gaps = new Float64Array(count);
  const measured: number[] = [];
  for (let k = 0; k < count; k++) {
    const i = order === undefined ? k : order[k];
    const t = timeNs[i];
    const previous = last.get(thread[i]);
    gaps[i] = previous === undefined ? -1 : t - previous;
    if (previous !== undefined && t > previous) measured.push(t - previous);
    last.set(thread[i], t);
  }
  let typicalNs = fallbackNs;
  if (measured.length > 0) {
    measured.sort((a, b) => a - b);
    typicalNs = Math.max(1, Math.round(measured[measured.length >> 1]));
  }
  const longest = 10 * typicalNs;
  return { wallNs: Array.from(gaps, (g) => (g <= 0 || g > longest ? typicalNs : Math.round(g))), typicalNs };
}

test('a sample is worth the time since its thread\'s previous one; firsts, repeats and long gaps count one typical gap', () => {
  // Thread 0 every 2 ms, with one 50 ms pause; thread 1 every 3 ms, with two samples at one time.
  const ms = 1_000_000;
  const time = new Float64Array([0, 1, 2, 4, 6, 7, 56, 58, 7, 10].map((t) => t * ms));
  const thread = new Uint32Array([0, 1, 0, 0, 0, 1, 0, 0, 1, 1]);
  const order = new Uint32Array([0, 1, 2, 3, 4, 5, 8, 9, 6, 7]);
  const { wallNs, typicalNs } = sampleGaps(time, thread, time.length, order, 4 * ms);
  // Gaps measured: thread 0: 2, 2, 2, 50, 2; thread 1: 6, 3 (the repeat measures nothing). Median of 7: 2 ms.
  assert.equal(typicalNs, 2 * ms);
  assert.deepEqual(Array.from(wallNs, (v) => v / ms), [2, 2, 2, 2, 2, 6, 2, 2, 2, 3]);
});

test('one sample per thread: nothing to measure, the fallback interval', () => {
  const { wallNs, typicalNs } = sampleGaps(new Float64Array([5, 9]), new Uint32Array([0, 1]), 2, undefined, 1000);
  assert.equal(typicalNs, 1000);
  assert.deepEqual(Array.from(wallNs), [1000, 1000]);
  assert.deepEqual(sampleGaps(new Float64Array(0), new Uint32Array(0), 0, undefined, 7), { wallNs: new Float64Array(0), typicalNs: 7 });
});

test('the same values as the first version on jittered multi-thread recordings, ordered or given an order', () => {
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (const [count, threads] of [[1, 1], [2, 1], [1000, 3], [20_001, 17], [50_000, 1]]) {
    const time = new Float64Array(count);
    const thread = new Uint32Array(count);
    let t = 0;
    for (let i = 0; i < count; i++) {
      // Mostly a few ms apart, sometimes no time at all, sometimes a long pause; fractions as a QPC scale gives.
      const r = random();
      t += r < 0.05 ? 0 : r > 0.99 ? 80e6 * random() : 1e6 + 3e6 * random();
      time[i] = t;
      thread[i] = Math.floor(random() * threads);
    }
    const sorted = sampleGaps(time, thread, count, undefined, 1e6);
    const expected = reference(time, thread, count, undefined, 1e6);
    assert.equal(sorted.typicalNs, expected.typicalNs, `${count} samples`);
    assert.deepEqual(Array.from(sorted.wallNs), expected.wallNs, `${count} samples`);
    // The same samples stored shuffled, visited through an order.
    const perm = Array.from({ length: count }, (_, i) => i);
    for (let i = count - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    const shuffledTime = new Float64Array(count);
    const shuffledThread = new Uint32Array(count);
    const order = new Uint32Array(count);
    perm.forEach((to, from) => {
      shuffledTime[to] = time[from];
      shuffledThread[to] = thread[from];
      order[from] = to;
    });
    const viaOrder = sampleGaps(shuffledTime, shuffledThread, count, order, 1e6);
    assert.deepEqual(viaOrder, { wallNs: Float64Array.from(reference(shuffledTime, shuffledThread, count, order, 1e6).wallNs), typicalNs: expected.typicalNs });
    assert.deepEqual(Array.from(order, (i) => viaOrder.wallNs[i]), expected.wallNs);
  }
});

test('the selection finds what a sort would put at k, on any shape of input', () => {
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const shapes: Record<string, (n: number) => number[]> = {
    random: (n) => Array.from({ length: n }, () => Math.floor(random() * 1000)),
    sorted: (n) => Array.from({ length: n }, (_, i) => i),
    reversed: (n) => Array.from({ length: n }, (_, i) => n - i),
    equal: (n) => Array.from({ length: n }, () => 5),
    twoValues: (n) => Array.from({ length: n }, () => (random() < 0.5 ? 1 : 2)),
    organPipe: (n) => Array.from({ length: n }, (_, i) => Math.min(i, n - i)),
  };
  for (const [shape, make] of Object.entries(shapes)) {
    for (const n of [1, 2, 3, 10, 1001, 20_000]) {
      const values = make(n);
      const sorted = Float64Array.from(values).sort();
      for (const k of new Set([0, n >> 1, n - 1, Math.floor(random() * n)])) {
        assert.equal(kthSmallest(Float64Array.from(values), k), sorted[k], `${shape}, n ${n}, k ${k}`);
      }
    }
  }
});

test('out of partitioning rounds, the rest is sorted: the same answer', () => {
  const values = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
  for (const rounds of [0, 1, 3]) {
    for (const k of [0, 499, 500, 999]) assert.equal(kthSmallest(Float64Array.from(values), k, rounds), k, `rounds ${rounds}, k ${k}`);
  }
});
