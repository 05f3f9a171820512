// pprof: its description (about.ts) with its reader and writer.

import type { RecordingFormat, WriteContext } from '../recording-format.js';
import type { Recording } from '../../profile/recording.js';
import { pprofAbout } from './about.js';
import { fromPprof, MAX_PPROF_BYTES } from './from-pprof.js';
import { toPprof } from './to-pprof.js';

function* pprofChunks(rec: Recording, context: WriteContext): Generator<Uint8Array> {
  // Encoded at once: progress is 0 of 1 until it is written.
  context.progress?.(0, 1);
  yield toPprof(rec, context.gzip, context.lines, { summed: context.summed });
  context.progress?.(1, 1);
}

export const pprofFormat = {
  ...pprofAbout,
  reader: { kind: 'whole', limit: MAX_PPROF_BYTES, gzipped: true, parse: (bytes: Uint8Array) => fromPprof(bytes) },
  writer: pprofChunks,
} as const satisfies RecordingFormat;
