// Writers of formats that need more than bytes (a process, files of their own), registered by
// format id beside the format's description in structs/formats/registry.ts ("writer: 'host'").

import { stat } from 'node:fs/promises';
import type { RecordingFileFormat } from '../../../structs/formats/registry.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { UserError } from '../errors/user-error.js';
import { etlxConverterPath, toEtlx } from './etlx.js';

export interface HostWriter {
  /** Throws one sentence when what the writer needs is missing, before any work that would be wasted. */
  checkAvailable(): Promise<void>;
  /** Writes the file into place; returns its size. */
  write(path: string, rec: Recording, progress: (done: number, total: number) => void): Promise<number>;
}

const etlxWriter: HostWriter = {
  async checkAvailable() {
    const converter = etlxConverterPath();
    const found = await stat(converter).then((s) => s.isFile(), () => false);
    if (!found) throw new UserError(`Writing .etlx files needs the .etlx converter, which is not built at ${converter}; run scripts/setup.sh (or bash scripts/build-targets.sh).`);
  },
  async write(path, rec, progress) {
    // The converter writes the file itself and renames it into place only when complete.
    await toEtlx(rec, path, { onProgress: progress });
    progress(1, 1);
    return (await stat(path)).size;
  },
};

export const HOST_WRITERS: Partial<Record<RecordingFileFormat, HostWriter>> = {
  etlx: etlxWriter,
};
