// clrscope's own format: its description (about.ts) with its reader and writer.

import { Recording } from '../../profile/recording.js';
import { FILE_READ_LIMITS } from '../../profile/read-budget.js';
import type { RecordingFormat } from '../recording-format.js';
import { clrscopeAbout } from './about.js';
import { RecordingFileReader } from './open-recording.js';
import { recordingFileChunks } from './save-recording.js';

export const clrscopeFormat = {
  ...clrscopeAbout,
  reader: {
    kind: 'chunked',
    open: () => new RecordingFileReader(new Recording({ keepSamples: true, limits: FILE_READ_LIMITS })),
  },
  writer: (rec, context) => recordingFileChunks(rec, context.counters, { progress: context.progress, ...(context.heapSnapshots !== undefined ? { heapSnapshots: context.heapSnapshots } : {}) }),
} as const satisfies RecordingFormat;
