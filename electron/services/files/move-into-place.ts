// A finished file made in a private folder (the spool, the .etlx converter's folder) becomes
// the output by a rename: nothing is written twice, and the name the user asked for holds
// either the whole file or what was there before. A rename cannot cross file systems (EXDEV):
// then the file is copied through the atomic writer (a fresh exclusive file beside the output,
// renamed over it) and the source removed. Either way the output is owner-only like every file
// clrscope creates: the source is made so before it moves, since a rename keeps the mode its
// maker gave it.

import { createReadStream, constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { SAVE_FAILED_EXIT_CODE, writeFileAtomically } from '../export/atomic-file.js';
import { UserError } from '../errors/user-error.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { settleMode } from './exclusive-file.js';

/** Moves `from` to `to` (a rename, or a copy across file systems); UserError when it cannot be. */
export async function moveIntoPlace(from: string, to: string): Promise<void> {
  try {
    const handle = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      settleMode(handle.fd);
    } finally {
      await handle.close();
    }
    await rename(from, to);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw new UserError(`Cannot write ${to}: ${fsErrorText(err, to, 'write')}.`, SAVE_FAILED_EXIT_CODE);
  }
  await writeFileAtomically(to, createReadStream(from, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>);
  await unlink(from).catch(() => undefined);
}
