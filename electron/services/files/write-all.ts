// A write(2) may take fewer bytes than it was given (a file size limit, a nearly full disk, a
// signal): its count must be checked and the rest written, or the file is silently short.
// Node ignores SIGXFSZ, so under `ulimit -f` the first write past the limit returns a short
// count and only the next one fails with EFBIG.

import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** A write that made no progress: the file system took nothing, without saying why. */
function noProgress(): NodeJS.ErrnoException {
  return Object.assign(new Error('the file system accepted no more bytes'), { code: 'ENOSPC' });
}

/** Writes all of `data` at the descriptor's position; throws the write's error (EFBIG, ENOSPC, ...). */
export function writeAllSync(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) {
    const n = writeSync(fd, data, done, data.length - done);
    if (n <= 0) throw noProgress();
    done += n;
  }
}

/** Writes all of `data` at file offset `position` (the descriptor's own offset does not move). */
export function writeAllSyncAt(fd: number, data: Uint8Array, position: number): void {
  let done = 0;
  while (done < data.length) {
    const n = writeSync(fd, data, done, data.length - done, position + done);
    if (n <= 0) throw noProgress();
    done += n;
  }
}

/** Writes all of `data` through `handle`; throws the write's error (EFBIG, ENOSPC, ...). */
export async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    if (bytesWritten <= 0) throw noProgress();
    done += bytesWritten;
  }
}
