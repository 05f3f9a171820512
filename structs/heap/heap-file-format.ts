// The description of a heap snapshot file format, like a recording format's (structs/formats/
// recording-format.ts) but for what a heap snapshot is: a HeapSnapshot, not a Recording. The
// formats: gcdump (structs/formats/gcdump/) and clrscope's own (structs/formats/clrheap/).

import type { HeapSnapshot } from './heap-snapshot.js';

export interface HeapFileAbout {
  id: string;
  /** What messages call the format. */
  name: string;
  /** Extensions, lower case, that name the format when reading. */
  read: readonly string[];
  /** Whether the file's first bytes are this format's. */
  sniff: (head: Uint8Array) => boolean;
}

/** Where a snapshot came from, as a file written keeps it. */
export interface HeapFileInfo {
  pid?: number;
  takenAt?: string;
  gcNumber?: number;
}

export interface HeapFileFormat extends HeapFileAbout {
  /** Reads the whole file; a file it cannot read throws an error whose message is one sentence. */
  reader: (bytes: Uint8Array) => HeapSnapshot;
  /** The file's bytes as parts, in order, for a format clrscope writes (its extension is `read[0]`). */
  parts?: (snap: HeapSnapshot, info: HeapFileInfo) => Uint8Array[];
}

