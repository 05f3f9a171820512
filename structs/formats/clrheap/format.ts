// .clrheap: the description (about.ts) with its reader and writer.

import type { HeapFileFormat } from '../../heap/heap-file-format.js';
import { clrheapAbout } from './about.js';
import { clrheapParts, readClrheap } from './clrheap-file.js';

export const clrheapFormat = {
  ...clrheapAbout,
  reader: readClrheap,
  parts: clrheapParts,
} as const satisfies HeapFileFormat;
