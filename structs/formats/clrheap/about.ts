// .clrheap, clrscope's own heap snapshot files (`clrscope heap --pid PID -o FILE`), described.
// A heap snapshot, not a recording, so it is listed with the heap formats
// (structs/heap/heap-formats.ts), not in catalog.ts. Its reader is in format.ts.

import type { HeapFileAbout } from '../../heap/heap-file-format.js';
import { isClrheap } from './clrheap-file.js';

export const clrheapAbout = {
  id: 'clrheap',
  name: 'clrheap (clrscope heap snapshot)',
  read: ['.clrheap'],
  sniff: isClrheap,
} as const satisfies HeapFileAbout;
