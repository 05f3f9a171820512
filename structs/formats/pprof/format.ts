// pprof's profile.proto, gzipped as go tool pprof writes it: totals per stack and thread.

import type { RecordingFormat, WriteContext } from '../recording-format.js';
import type { Recording } from '../../profile/recording.js';
import { fromPprof, MAX_PPROF_BYTES } from './from-pprof.js';
import { toPprof } from './to-pprof.js';

/**
 * A gzip stream (what pprof files are), or a bare profile whose first field is a sample type
 * (tag 0x0a, a short length, then the value type's own first tag 0x08), as pprof writers order it.
 */
function sniffPprof(head: Uint8Array): boolean {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  return head.length >= 3 && head[0] === 0x0a && head[1] < 0x80 && head[2] === 0x08;
}

function* pprofChunks(rec: Recording, context: WriteContext): Generator<Uint8Array> {
  // Encoded at once: progress is 0 of 1 until it is written.
  context.progress?.(0, 1);
  yield toPprof(rec, context.gzip, context.lines, { summed: context.summed });
  context.progress?.(1, 1);
}

export const pprofFormat = {
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
  reader: { kind: 'whole', limit: MAX_PPROF_BYTES, gzipped: true, parse: (bytes: Uint8Array) => fromPprof(bytes) },
  writer: pprofChunks,
  usesLines: true,
} as const satisfies RecordingFormat;
