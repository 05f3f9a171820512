// clrscope's own format: the wire stream with its counters, everything a recording holds.

import { Recording } from '../../profile/recording.js';
import { FILE_READ_LIMITS } from '../../profile/read-budget.js';
import { startsWithAscii, type RecordingFormat } from '../recording-format.js';
import { RecordingFileReader } from './open-recording.js';
import { recordingFileChunks } from './save-recording.js';

export const clrscopeFormat = {
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
  reader: {
    kind: 'chunked',
    open: () => new RecordingFileReader(new Recording({ keepSamples: true, limits: FILE_READ_LIMITS })),
  },
  writer: (rec, context) => recordingFileChunks(rec, context.counters, { progress: context.progress }),
} as const satisfies RecordingFormat;
