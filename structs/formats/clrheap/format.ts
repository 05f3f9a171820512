// .clrheap: the description (about.ts) with its reader.

import type { HeapFileFormat } from '../../heap/heap-file-format.js';
import { clrheapAbout } from './about.js';
import { readClrheap } from './clrheap-file.js';

export const clrheapFormat = {
  ...clrheapAbout,
  reader: readClrheap,
} as const satisfies HeapFileFormat;
