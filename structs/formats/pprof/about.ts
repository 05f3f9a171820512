// pprof's profile.proto, gzipped as go tool pprof writes it, described: totals per stack and
// thread. Its reader and writer are in format.ts.

import type { FormatDescription } from '../recording-format.js';

/**
 * A gzip stream (what pprof files are), or a bare profile whose first field is a sample type
 * (tag 0x0a, a short length, then the value type's own first tag 0x08), as pprof writers order it.
 */
function sniffPprof(head: Uint8Array): boolean {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  return head.length >= 3 && head[0] === 0x0a && head[1] < 0x80 && head[2] === 0x08;
}

export const pprofAbout = {
  id: 'pprof',
  name: 'pprof',
  label: 'pprof',
  read: ['.pb.gz', '.pb', '.pprof'],
  write: ['.pb.gz', '.pb', '.pprof'],
  exportRank: 1,
  help: { read: 'a pprof profile, gzipped or not', write: 'gzipped pprof (go tool pprof)' },
  note: 'CPU and wall time per stack and thread, for go tool pprof or Speedscope; sample times, GC pauses and counters are left out.',
  openHint: (path: string) => `Try: go tool pprof -top -sample_index=cpu ${path}`,
  keeps: 'pprof keeps per-thread totals per stack: no sample times, GC pauses or counters',
  sniff: sniffPprof,
  usesLines: true,
} as const satisfies FormatDescription;
