// Parts of a file or stream joined into one array: for what is small or a test's, since large
// files are written part by part and never held whole.

/** The parts in order, in one array (a lone part as it is, no copy). */
export function joined(parts: readonly Uint8Array[]): Uint8Array {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? new Uint8Array(0);
  const out = new Uint8Array(nonEmpty.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of nonEmpty) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
