// Deterministic mutations of real files for the readers' fuzz test: a small seeded PRNG and
// the usual byte-level operators (bit flips, interesting values, length fields, truncation,
// deletion, duplication, splicing), plus value-level changes for JSON.

/** mulberry32: a fixed seed gives the same inputs on every run and machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe];
const INTERESTING_U32 = [0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x10000, 0x100000, 0x100001, 0x7fffffff, 0x80000000, 0xffffffff];

export function mutateBytes(seed: Uint8Array, others: readonly Uint8Array[], random: () => number): Uint8Array {
  let b: Uint8Array = seed.slice();
  const int = (n: number): number => Math.floor(random() * n);
  const rounds = 1 + int(4);
  for (let r = 0; r < rounds; r++) {
    if (b.length === 0) break;
    const at = int(b.length);
    switch (int(8)) {
      case 0: b[at] ^= 1 << int(8); break;
      case 1: b[at] = INTERESTING_BYTES[int(INTERESTING_BYTES.length)]; break;
      case 2: {
        if (b.length < 4) break;
        const p = int(b.length - 3);
        const v = random() < 0.5 ? INTERESTING_U32[int(INTERESTING_U32.length)] : (b.length + int(64) - 32) >>> 0;
        new DataView(b.buffer, b.byteOffset).setUint32(p, v, true);
        break;
      }
      case 3: b = b.slice(0, at); break;
      case 4: {
        const end = Math.min(b.length, at + 1 + int(64));
        b = concat(b.subarray(0, at), b.subarray(end));
        break;
      }
      case 5: {
        const end = Math.min(b.length, at + 1 + int(256));
        const copies = 1 + int(4);
        const parts = [b.subarray(0, end)];
        for (let i = 0; i < copies; i++) parts.push(b.subarray(at, end));
        parts.push(b.subarray(end));
        b = concat(...parts);
        break;
      }
      case 6: {
        const other = others[int(others.length)];
        if (other.length === 0) break;
        const from = int(other.length);
        b = concat(b.subarray(0, at), other.subarray(from, Math.min(other.length, from + 1 + int(512))), b.subarray(at));
        break;
      }
      default: {
        const junk = new Uint8Array(1 + int(16));
        for (let i = 0; i < junk.length; i++) junk[i] = int(256);
        b = concat(b.subarray(0, at), junk, b.subarray(at));
      }
    }
  }
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const INTERESTING_VALUES: unknown[] = [
  0, -1, 1e308, -1e308, 2 ** 53 + 1, 1e21, 0.5, Number.MAX_SAFE_INTEGER, '', 'x', null, true, [], {}, [[[[]]]],
  '\u0000', 'a'.repeat(70_000), -0, 4294967296,
];

/** Changes values inside parsed JSON: replaces, drops, or repeats members and elements. */
export function mutateJson(seed: string, random: () => number): string {
  let doc: unknown;
  try {
    doc = JSON.parse(seed);
  } catch {
    return seed;
  }
  const int = (n: number): number => Math.floor(random() * n);
  const rounds = 1 + int(4);
  for (let r = 0; r < rounds; r++) {
    // Walk down a random path, then change what is there.
    let parent: Record<string, unknown> | unknown[] | undefined;
    let key: string | number | undefined;
    let node: unknown = doc;
    for (let depth = 0; depth < 8 && typeof node === 'object' && node !== null && random() < 0.85; depth++) {
      const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
      if (keys.length === 0) break;
      parent = node as Record<string, unknown> | unknown[];
      key = keys[int(keys.length)];
      node = (parent as Record<string | number, unknown>)[key];
    }
    if (parent === undefined || key === undefined) continue;
    const p = parent as Record<string | number, unknown>;
    switch (int(4)) {
      case 0: p[key] = INTERESTING_VALUES[int(INTERESTING_VALUES.length)]; break;
      case 1:
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete p[key];
        break;
      case 2:
        if (Array.isArray(parent)) parent.splice(Number(key), 0, ...Array.from({ length: 1 + int(50) }, () => structuredClone(node)));
        else p[key] = structuredClone(node);
        break;
      default:
        if (typeof node === 'number') p[key] = node * (random() < 0.5 ? -1 : 1e6) + int(3);
        else p[key] = INTERESTING_VALUES[int(INTERESTING_VALUES.length)];
    }
  }
  return JSON.stringify(doc);
}
