// .gcdump: the description (about.ts) with its reader and writer.

import type { HeapFileFormat } from '../../heap/heap-file-format.js';
import { gcdumpAbout } from './about.js';
import { readGcdump } from './read-gcdump.js';
import { gcdumpParts } from './write-gcdump.js';

export const gcdumpFormat = {
  ...gcdumpAbout,
  reader: readGcdump,
  parts: gcdumpParts,
} as const satisfies HeapFileFormat;
