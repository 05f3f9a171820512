// .gcdump: the description (about.ts) with its reader.

import type { HeapFileFormat } from '../../heap/heap-file-format.js';
import { gcdumpAbout } from './about.js';
import { readGcdump } from './read-gcdump.js';

export const gcdumpFormat = {
  ...gcdumpAbout,
  reader: readGcdump,
} as const satisfies HeapFileFormat;
