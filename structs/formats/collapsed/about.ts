// Collapsed stacks (`thread;root;...;leaf VALUE` a line), the text flamegraph.pl, speedscope and
// diff tools read, described: written only. Its writer is in format.ts.

import type { FormatDescription } from '../recording-format.js';

export const collapsedAbout = {
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
} as const satisfies FormatDescription;
