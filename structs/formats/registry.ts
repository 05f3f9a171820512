// Every recording file format clrscope reads or writes, listed once. The CLI, the API
// contract's export list and the export view all derive from this list, so a new format is its
// folder (with a format.ts) and one line here.

import { clrscopeFormat } from './clrscope-file/format.js';
import { collapsedFormat } from './collapsed/format.js';
import { etlxFormat } from './etlx/format.js';
import { nettraceFormat } from './nettrace/format.js';
import { pprofFormat } from './pprof/format.js';
import type { RecordingFormat } from './recording-format.js';
import { speedscopeFormat } from './speedscope/format.js';

/** In the order messages list their extensions and content is sniffed. */
export const RECORDING_FORMATS = [
  clrscopeFormat,
  nettraceFormat,
  etlxFormat,
  speedscopeFormat,
  pprofFormat,
  collapsedFormat,
] as const;

type Listed = (typeof RECORDING_FORMATS)[number];
export type RecordingFileFormat = Listed['id'];
/** The formats something writes: every one with a write extension. */
export type ExportFormat = Extract<Listed, { write: readonly [string, ...string[]] }>['id'];

const BY_ID = new Map<string, RecordingFormat>(RECORDING_FORMATS.map((f) => [f.id, f]));

export function recordingFormat(id: RecordingFileFormat): RecordingFormat {
  const format = BY_ID.get(id);
  if (format === undefined) throw new Error(`no recording format ${id}`);
  return format;
}

/** Written formats in the export view's order. */
export const EXPORT_FORMATS: readonly ExportFormat[] = RECORDING_FORMATS
  .filter((f) => f.write.length > 0)
  .sort((a, b) => a.exportRank - b.exportRank)
  .map((f) => f.id as ExportFormat);

/** The format a file name's extension names, longest extension first (`.speedscope.json` wins over `.json`). */
export function formatOfPath(path: string, direction: 'read' | 'write'): RecordingFileFormat | undefined {
  const lower = path.toLowerCase();
  let best: { format: RecordingFileFormat; length: number } | undefined;
  for (const format of RECORDING_FORMATS) {
    for (const ext of format[direction]) {
      if (lower.endsWith(ext) && lower.length > ext.length && (best === undefined || ext.length > best.length)) best = { format: format.id, length: ext.length };
    }
  }
  return best?.format;
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

/** convert --help's table of what it reads or writes: a line per format, its extensions and its help text wrapped at 79 columns. */
export function formatHelpTable(direction: 'read' | 'write', indent: number): string {
  const rows: string[] = [];
  for (const format of RECORDING_FORMATS) {
    const f: RecordingFormat = format;
    const text = f.help[direction];
    if (text === undefined) continue;
    const exts = f[direction].filter((e) => e !== '.json').join(' ');
    const words = text.split(' ');
    let line = `${' '.repeat(indent)}${exts.padEnd(18)} `;
    const hang = ' '.repeat(indent + 19);
    for (const word of words) {
      if (line.length + word.length > 79 && line.trim() !== '') {
        rows.push(line.trimEnd());
        line = hang;
      }
      line += `${word} `;
    }
    rows.push(line.trimEnd());
  }
  return rows.join('\n');
}

/** "a .clrscope, .nettrace, … file name": the extensions a direction accepts, for error sentences. */
export function extensionList(direction: 'read' | 'write'): string {
  const exts = RECORDING_FORMATS.flatMap((f) => f[direction].filter((e) => !(direction === 'read' && e === '.json')));
  return `${exts.slice(0, -1).join(', ')} or ${exts[exts.length - 1]}`;
}
