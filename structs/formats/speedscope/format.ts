// speedscope's JSON file format: per-thread weights in time order.

import type { RecordingFormat } from '../recording-format.js';
import { fromSpeedscope } from './from-speedscope.js';
import { SPEEDSCOPE_SCHEMA_URL } from './speedscope-file.js';
import { speedscopeJsonChunks } from './to-speedscope.js';

/**
 * A speedscope file is read where it lies, as bytes (never as one string or parsed whole), so
 * it costs its own size plus what it builds; the import budget bounds the latter.
 */
const SPEEDSCOPE_LIMIT = 256 * (1 << 20);

/** A JSON object whose first bytes name speedscope's schema (speedscope and dotnet-trace write it first). */
function sniffSpeedscope(head: Uint8Array): boolean {
  const text = new TextDecoder().decode(head);
  return /^\uFEFF?\s*\{/.test(text) && text.includes(SPEEDSCOPE_SCHEMA_URL);
}

export const speedscopeFormat = {
  id: 'speedscope',
  name: 'speedscope JSON',
  label: 'speedscope',
  read: ['.speedscope.json', '.json'],
  write: ['.speedscope.json'],
  exportRank: 3,
  help: { read: 'a speedscope file (sampled or evented profiles)', write: 'one sampled profile per thread and metric' },
  note: 'CPU and wall time per thread, for speedscope.app; sample times, GC pauses and counters are left out.',
  openHint: () => 'Open it at https://www.speedscope.app',
  keeps: 'speedscope keeps cpu and wall weights per thread in time order: no sample times, sample counts, GC pauses or counters',
  sniff: sniffSpeedscope,
  reader: { kind: 'whole', limit: SPEEDSCOPE_LIMIT, gzipped: false, parse: (bytes: Uint8Array) => fromSpeedscope(bytes) },
  writer: (rec, context) => speedscopeJsonChunks(rec, { metric: context.metric, progress: context.progress, lines: context.lines }),
  usesLines: true,
} as const satisfies RecordingFormat;
