// The heap snapshots inside a .clrscope recording (HEAP_SNAPSHOT records, heap-record.ts), read as
// a heap format (structs/heap/heap-formats.ts): the last snapshot the recording keeps.

import type { HeapFileFormat } from '../../heap/heap-file-format.js';
import { readClrheap } from '../clrheap/clrheap-file.js';
import { clrheapsInClrscope, isClrscopeFile } from './heap-record.js';

export const clrscopeHeapFormat = {
  id: 'clrscope',
  name: 'clrscope recording',
  read: ['.clrscope'],
  sniff: isClrscopeFile,
  reader: (bytes: Uint8Array) => {
    const all = clrheapsInClrscope(bytes);
    if (all.length === 0) throw new Error('the recording keeps no heap snapshot (take one in the Heap tab of its session before saving it)');
    return readClrheap(all[all.length - 1]);
  },
} as const satisfies HeapFileFormat;
