// Which recording file formats clrscope reads and writes, picked by file name extension, with
// the names and sentences the CLI and the workstation show for them.

export type RecordingFileFormat = 'clrscope' | 'nettrace' | 'etlx' | 'speedscope' | 'pprof';

interface FormatInfo {
  /** Extensions, lower case, longest first so `.speedscope.json` wins over `.json`. */
  read: readonly string[];
  write: readonly string[];
  /** What the user reads in messages. */
  name: string;
}

export const RECORDING_FORMATS: Record<RecordingFileFormat, FormatInfo> = {
  clrscope: { read: ['.clrscope'], write: ['.clrscope'], name: 'clrscope recording' },
  nettrace: { read: ['.nettrace'], write: ['.nettrace'], name: 'nettrace' },
  etlx: { read: [], write: ['.etlx'], name: 'PerfView etlx' },
  speedscope: { read: ['.speedscope.json', '.json'], write: ['.speedscope.json'], name: 'speedscope JSON' },
  pprof: { read: ['.pb.gz', '.pb', '.pprof'], write: ['.pb.gz', '.pb', '.pprof'], name: 'pprof' },
};

const ORDER: RecordingFileFormat[] = ['clrscope', 'nettrace', 'etlx', 'speedscope', 'pprof'];

export function formatOfPath(path: string, direction: 'read' | 'write'): RecordingFileFormat | undefined {
  const lower = path.toLowerCase();
  let best: { format: RecordingFileFormat; length: number } | undefined;
  for (const format of ORDER) {
    for (const ext of RECORDING_FORMATS[format][direction]) {
      if (lower.endsWith(ext) && lower.length > ext.length && (best === undefined || ext.length > best.length)) best = { format, length: ext.length };
    }
  }
  return best?.format;
}

/** "a .clrscope, .nettrace, … file name": the extensions a direction accepts, for error sentences. */
export function extensionList(direction: 'read' | 'write'): string {
  const exts = ORDER.flatMap((f) => RECORDING_FORMATS[f][direction].filter((e) => !(direction === 'read' && e === '.json')));
  return `${exts.slice(0, -1).join(', ')} or ${exts[exts.length - 1]}`;
}
