// clrscope's own format, described: the wire stream with its counters, everything a recording
// holds. Its reader and writer are in format.ts.

import { startsWithAscii, type FormatDescription } from '../recording-format.js';

export const clrscopeAbout = {
  id: 'clrscope',
  name: 'clrscope recording',
  label: 'clrscope',
  read: ['.clrscope'],
  write: ['.clrscope'],
  exportRank: 2,
  help: {
    read: 'a saved clrscope recording (streamed: any size)',
    write: 'everything: every sample with its time, thread and values, the GC pauses, the counters readings',
  },
  note: 'Everything: every sample with its time, the threads, the GC pauses and the counters; reopen it here with Open recording….',
  openHint: (path: string) => `Convert it with: clrscope convert ${path} -o OTHER.pb.gz (or .speedscope.json, .nettrace, .etlx)`,
  // The wire preamble's magic.
  sniff: (head: Uint8Array) => startsWithAscii(head, 'CLRSCOPE'),
} as const satisfies FormatDescription;
