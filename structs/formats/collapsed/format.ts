// Collapsed stacks: the description (about.ts) with its writer; collapsed-stream.ts reads such
// text for tests and benchmarks.

import type { RecordingFormat } from '../recording-format.js';
import { collapsedAbout } from './about.js';
import { toCollapsed } from './to-collapsed.js';

export const collapsedFormat = {
  ...collapsedAbout,
  writer: (rec, context) => [toCollapsed(rec, { metric: context.metric === 'wall' ? 'wall' : 'cpu', groupByThread: true })],
} as const satisfies RecordingFormat;
