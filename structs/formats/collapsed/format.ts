// Collapsed stacks (`thread;root;...;leaf VALUE` a line), the text flamegraph.pl, speedscope and
// diff tools read: written only; collapsed-stream.ts reads such text for tests and benchmarks.

import type { RecordingFormat } from '../recording-format.js';
import { toCollapsed } from './to-collapsed.js';

export const collapsedFormat = {
  id: 'collapsed',
  name: 'collapsed stacks',
  label: 'collapsed stacks',
  read: [],
  write: ['.collapsed', '.folded'],
  exportRank: 6,
  help: { write: 'collapsed stacks, a line per thread and stack with its CPU ns (wall with --metric wall), for flamegraph.pl' },
  note: 'CPU time in nanoseconds per thread and stack, a line each (thread;root;…;leaf ns), for flamegraph.pl, speedscope or a diff; sample times, GC pauses and counters are left out.',
  openHint: (path: string) => `Draw it with: flamegraph.pl ${path} > flame.svg (or open it at https://www.speedscope.app)`,
  keeps: 'collapsed stacks keep one metric per thread and stack: no sample times, GC pauses or counters',
  writer: (rec, context) => [toCollapsed(rec, { metric: context.metric === 'wall' ? 'wall' : 'cpu', groupByThread: true })],
} as const satisfies RecordingFormat;
