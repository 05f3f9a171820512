// .gcdump, the heap snapshots dotnet-gcdump and PerfView write, described (read and written). A heap
// snapshot, not a recording, so it is listed with the heap formats (structs/heap/heap-formats.ts),
// not in catalog.ts. Its reader is in format.ts.

import type { HeapFileAbout } from '../../heap/heap-file-format.js';
import { isGcdump } from './read-gcdump.js';

export const gcdumpAbout = {
  id: 'gcdump',
  name: 'gcdump (dotnet-gcdump, PerfView)',
  read: ['.gcdump'],
  sniff: isGcdump,
} as const satisfies HeapFileAbout;
