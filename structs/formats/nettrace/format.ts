// EventPipe's .nettrace: its description (about.ts) with its reader and writer, both streamed
// (any size).

import { FILE_READ_LIMITS } from '../../profile/read-budget.js';
import type { RecordingFormat } from '../recording-format.js';
import { nettraceAbout } from './about.js';
import { NettraceReader } from './nettrace-reader.js';
import { nettraceChunks } from './recording-to-nettrace.js';

export const nettraceFormat = {
  ...nettraceAbout,
  reader: {
    kind: 'chunked',
    open: () => {
      const reader = new NettraceReader({ limits: FILE_READ_LIMITS });
      return { push: (chunk: Uint8Array) => reader.push(chunk), finish: () => ({ recording: reader.finish(), counters: [] }) };
    },
  },
  writer: (rec, context) => nettraceChunks(rec, { onProgress: context.progress }),
} as const satisfies RecordingFormat;
