// Every recording file format clrscope reads or writes, with its reader and writer: what the CLI
// (convert, record, report) and the main process use. catalog.ts lists the same formats'
// descriptions alone, in the same order, for the renderer and the API contract; a new format is
// its folder and one line here and one there (registry.test.ts checks that the two lists agree).

import { clrscopeFormat } from './clrscope-file/format.js';
import { collapsedFormat } from './collapsed/format.js';
import { etlxFormat } from './etlx/format.js';
import { flameHtmlFormat, flameSvgFormat } from './flame-graph/format.js';
import { nettraceFormat } from './nettrace/format.js';
import { pprofFormat } from './pprof/format.js';
import type { RecordingFormat } from './recording-format.js';
import { speedscopeFormat } from './speedscope/format.js';
import type { RecordingFileFormat } from './catalog.js';

export { EXPORT_FORMATS, extensionList, formatHelpTable, formatOfPath, type ExportFormat, type RecordingFileFormat } from './catalog.js';

/** In the catalog's order: the order messages list their extensions and content is sniffed. */
export const RECORDING_FORMATS = [
  clrscopeFormat,
  nettraceFormat,
  etlxFormat,
  speedscopeFormat,
  pprofFormat,
  collapsedFormat,
  flameHtmlFormat,
  flameSvgFormat,
] as const satisfies readonly RecordingFormat[];

const BY_ID = new Map<string, RecordingFormat>(RECORDING_FORMATS.map((f) => [f.id, f]));

/** A format with its reader and writer. */
export function recordingFormat(id: RecordingFileFormat): RecordingFormat {
  const format = BY_ID.get(id);
  if (format === undefined) throw new Error(`no recording format ${id}`);
  return format;
}

/** How many first bytes of a file sniffing looks at. */
export const SNIFF_BYTES = 4096;

/** The readable format whose first bytes these are, if any says so. */
export function sniffFormat(head: Uint8Array): RecordingFileFormat | undefined {
  for (const format of RECORDING_FORMATS) {
    const f: RecordingFormat = format;
    if (f.reader !== undefined && f.sniff?.(head) === true) return format.id;
  }
  return undefined;
}
