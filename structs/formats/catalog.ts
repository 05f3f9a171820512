// Every recording file format clrscope reads or writes, described once, without its codec: what
// the renderer and the API contract need (the export list, the export view's names and notes)
// and what the CLI's messages say of extensions. registry.ts lists the same formats with their
// readers and writers, for the CLI and the main process; the renderer imports only this list,
// so its bundles carry no codec (scripts/build-renderer.mjs checks that they don't).

import { clrscopeAbout } from './clrscope-file/about.js';
import { collapsedAbout } from './collapsed/about.js';
import { etlxAbout } from './etlx/about.js';
import { flameHtmlAbout, flameSvgAbout } from './flame-graph/about.js';
import { nettraceAbout } from './nettrace/about.js';
import { pprofAbout } from './pprof/about.js';
import type { FormatDescription } from './recording-format.js';
import { speedscopeAbout } from './speedscope/about.js';

/** In the order messages list their extensions and content is sniffed. */
export const FORMAT_CATALOG = [
  clrscopeAbout,
  nettraceAbout,
  etlxAbout,
  speedscopeAbout,
  pprofAbout,
  collapsedAbout,
  flameHtmlAbout,
  flameSvgAbout,
] as const;

type Listed = (typeof FORMAT_CATALOG)[number];
export type RecordingFileFormat = Listed['id'];
/** The formats something writes: every one with a write extension. */
export type ExportFormat = Extract<Listed, { write: readonly [string, ...string[]] }>['id'];

const BY_ID = new Map<string, FormatDescription>(FORMAT_CATALOG.map((f) => [f.id, f]));

/** A format's description: its names, extensions and sentences. */
export function formatAbout(id: RecordingFileFormat): FormatDescription {
  const format = BY_ID.get(id);
  if (format === undefined) throw new Error(`no recording format ${id}`);
  return format;
}

/** Written formats in the export view's order. */
export const EXPORT_FORMATS: readonly ExportFormat[] = FORMAT_CATALOG
  .filter((f) => f.write.length > 0)
  .sort((a, b) => a.exportRank - b.exportRank)
  .map((f) => f.id as ExportFormat);

/** The format a file name's extension names, longest extension first (`.speedscope.json` wins over `.json`). */
export function formatOfPath(path: string, direction: 'read' | 'write'): RecordingFileFormat | undefined {
  const lower = path.toLowerCase();
  let best: { format: RecordingFileFormat; length: number } | undefined;
  for (const format of FORMAT_CATALOG) {
    for (const ext of format[direction]) {
      if (lower.endsWith(ext) && lower.length > ext.length && (best === undefined || ext.length > best.length)) best = { format: format.id, length: ext.length };
    }
  }
  return best?.format;
}

/** convert --help's table of what it reads or writes: a line per format, its extensions and its help text wrapped at 79 columns. */
export function formatHelpTable(direction: 'read' | 'write', indent: number): string {
  const rows: string[] = [];
  for (const format of FORMAT_CATALOG) {
    const f: FormatDescription = format;
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
  const exts = FORMAT_CATALOG.flatMap((f) => f[direction].filter((e) => !(direction === 'read' && e === '.json')));
  return `${exts.slice(0, -1).join(', ')} or ${exts[exts.length - 1]}`;
}
