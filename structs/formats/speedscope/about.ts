// speedscope's JSON file format, described: per-thread weights in time order. Its reader and
// writer are in format.ts.

import type { FormatDescription } from '../recording-format.js';
import { SPEEDSCOPE_SCHEMA_URL } from './speedscope-file.js';

/** A JSON object whose first bytes name speedscope's schema (speedscope and dotnet-trace write it first). */
function sniffSpeedscope(head: Uint8Array): boolean {
  const text = new TextDecoder().decode(head);
  return /^\uFEFF?\s*\{/.test(text) && text.includes(SPEEDSCOPE_SCHEMA_URL);
}

export const speedscopeAbout = {
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
  usesLines: true,
} as const satisfies FormatDescription;
