// speedscope's JSON file format: its description (about.ts) with its reader and writer.

import type { RecordingFormat } from '../recording-format.js';
import { speedscopeAbout } from './about.js';
import { fromSpeedscope } from './from-speedscope.js';
import { speedscopeJsonChunks } from './to-speedscope.js';

/**
 * A speedscope file is read where it lies, as bytes (never as one string or parsed whole), so
 * it costs its own size plus what it builds; the import budget bounds the latter.
 */
const SPEEDSCOPE_LIMIT = 256 * (1 << 20);

export const speedscopeFormat = {
  ...speedscopeAbout,
  reader: { kind: 'whole', limit: SPEEDSCOPE_LIMIT, gzipped: false, parse: (bytes: Uint8Array) => fromSpeedscope(bytes) },
  writer: (rec, context) => speedscopeJsonChunks(rec, { metric: context.metric, progress: context.progress, lines: context.lines }),
} as const satisfies RecordingFormat;
