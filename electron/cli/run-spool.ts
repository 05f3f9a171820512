// The spool of one `clrscope record` run: the file its session's stream goes to as it arrives,
// so a clrscope killed mid-run leaves the recording behind for `clrscope convert`, and what
// becomes of that file at the end (moved into place, kept with a sentence, or removed).

import { basename } from 'node:path';
import { privateDirProblem } from '../services/files/private-dir.js';
import { SessionStream } from '../services/spool/session-stream.js';
import { ensureSpoolDir, leftoverSpools, spoolDir, spoolFileName } from '../services/spool/spool-dir.js';
import { counted } from '../../structs/text/count.js';

/** Where the spool's sentences go (stderr). */
export interface SpoolIo {
  err: (line: string) => void;
}

/** The spool of this run: the session's stream, and whether the recording has been saved (then it needs no mention). */
export interface RunSpool {
  /** On disk in `dir` as it arrives, or in memory when no spool folder could be used. */
  stream: SessionStream;
  dir: string | undefined;
  saved: boolean;
  /** Leaves the file and says where it is. */
  keep(io: SpoolIo): void;
  /** Removes the file: it holds nothing worth keeping. */
  discard(): void;
}

/**
 * Creates this run's spool file, so a killed clrscope leaves its recording behind; mentions
 * recordings earlier runs left there. Without a usable cache folder the run goes on, saying
 * that a kill would lose the recording.
 */
export async function openSpool(io: SpoolIo): Promise<RunSpool> {
  let stream: SessionStream;
  let dir: string | undefined;
  try {
    dir = await ensureSpoolDir();
    announceLeftovers(dir, io);
    stream = SessionStream.onDisk(dir, spoolFileName(), (sentence) => io.err(`clrscope: ${sentence}`));
  } catch (err) {
    const why = privateDirProblem(err, spoolDir());
    io.err(`clrscope: the recording is kept in memory only (cannot use ${spoolDir()}: ${why}), so it would be lost if clrscope were killed.`);
    stream = SessionStream.inMemory();
    dir = undefined;
  }
  const spool: RunSpool = {
    stream,
    dir,
    saved: false,
    keep(out) {
      if (spool.saved) return;
      const file = stream.spoolFile;
      if (file === undefined || !file.holdsRecords) {
        spool.discard();
        return;
      }
      spool.saved = true;
      file.close();
      out.err(`clrscope: what was recorded is kept in ${file.path} (clrscope convert ${file.path} -o FILE writes it in any format).`);
    },
    discard() {
      spool.saved = true;
      void stream.close();
    },
  };
  return spool;
}

function announceLeftovers(dir: string, io: SpoolIo): void {
  const left = leftoverSpools(dir);
  if (left.length === 0) return;
  const newest = left[0].path;
  io.err(`clrscope: ${counted(left.length, 'recording')} of earlier runs that did not finish ${left.length === 1 ? 'is' : 'are'} kept in ${dir} (the newest: ${basename(newest)}); clrscope convert FILE -o OUT.pb.gz writes one in another format, or delete them.`);
}
