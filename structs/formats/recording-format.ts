// What every recording file format says about itself, once: its names, extensions, the
// sentences the CLI and the export view show and how to know its bytes (its description, in
// <name>/about.ts, listed by catalog.ts), then its reader and writer (<name>/format.ts: the
// description and its codec, listed by registry.ts).

import type { CountersPoint } from '../api/contract.js';
import type { StackThreadSums } from '../profile/aggregate.js';
import type { FrameLines } from '../profile/frame-lines.js';
import type { Recording } from '../profile/recording.js';
import type { SpeedscopeMetric } from './speedscope/to-speedscope.js';

/** A reader fed the file a chunk at a time, for formats read in pieces whatever their size. */
export interface ChunkedReader {
  push(chunk: Uint8Array): void;
  finish(): { recording: Recording; counters: CountersPoint[] };
}

export type FormatReader =
  | { kind: 'chunked'; open: () => ChunkedReader }
  /**
   * Parsed whole, up to `limit` bytes; `gzipped`: the host decompresses a gzip stream first
   * (within the same limit), since structs/ has no zlib.
   */
  | { kind: 'whole'; limit: number; gzipped: boolean; parse: (bytes: Uint8Array) => Recording };

export type FileProgressStep = (done: number, total: number) => void;

/** What a writer gets besides the recording; the host fills in what needs files or Node. */
export interface WriteContext {
  /** The counters time series, for formats that keep it. */
  counters: readonly CountersPoint[];
  progress?: FileProgressStep;
  /** speedscope: which profiles to write per thread. */
  metric?: SpeedscopeMetric;
  /** The frames' source lines, for formats with `usesLines` (the host reads them from PDBs). */
  lines?: FrameLines;
  /** The samples already summed per stack and thread, for a recording that keeps none. */
  summed?: StackThreadSums;
  /** .clrscope: heap snapshots of the recorded process, each a .clrheap file's bytes. */
  heapSnapshots?: readonly Uint8Array[];
  gzip: (bytes: Uint8Array) => Uint8Array;
}

/** A writer of pure bytes: the pieces of the file, in order; the host writes them atomically. */
export type FormatWriter = (rec: Recording, context: WriteContext) => Iterable<Uint8Array | string>;

/** A format as the renderer and the API contract see it: no reader or writer, so no codec. */
export interface FormatDescription {
  id: string;
  /** What messages call the format ("wrote x.pb.gz (pprof, ...)"). */
  name: string;
  /** The export view's short name on its button. */
  label: string;
  /** Extensions, lower case, that name the format when reading and when writing (the first is an export's). */
  read: readonly string[];
  write: readonly string[];
  /** Place in the export view's list (lower first). */
  exportRank: number;
  /** What the format keeps of a recording, under the export view's button. */
  note: string;
  /** After `record`: how to open the file written. */
  openHint?: (path: string) => string;
  /** convert --help's line for the format, under Reads: and Writes: (first lines only; more are indented). */
  help: { read?: string; write?: string };
  /** After `convert`: what the format leaves out, when that needs saying. */
  keeps?: string;
  /** Whether the file's first bytes are this format's (readers are picked by content first). */
  sniff?: (head: Uint8Array) => boolean;
  /** Whether the writer uses WriteContext.lines (so the host reads PDBs only for those). */
  usesLines?: boolean;
}

/** A format's description with its codec. */
export interface RecordingFormat extends FormatDescription {
  reader?: FormatReader;
  /** Pure-bytes writer, or 'host' for one that needs a process or files of its own (registered beside the host). */
  writer?: FormatWriter | 'host';
}

/** Whether `head` begins with the ASCII text `magic`. */
export function startsWithAscii(head: Uint8Array, magic: string): boolean {
  if (head.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (head[i] !== magic.charCodeAt(i)) return false;
  return true;
}
