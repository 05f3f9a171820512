// Tests write pprof files the way the CLI does, gzipped with Node's zlib (structs/ itself has no
// zlib: the caller hands the writer its gzip).

import { gzipSync } from 'node:zlib';
import type { FrameLines } from '../../profile/frame-lines.js';
import type { Recording } from '../../profile/recording.js';
import { toPprof, type PprofOptions } from './to-pprof.js';

export function gzippedPprof(rec: Recording, lines?: FrameLines, options: PprofOptions = {}): Uint8Array {
  return toPprof(rec, (bytes) => gzipSync(bytes), lines, options);
}
