// A worker thread that reads one recording file, in any format, and sends it back as the
// .clrscope stream a file session shows. Parsing a file is the one long piece of work the
// workstation does on request; on its event loop, a hostile speedscope file held every other
// client (pages, API calls) for 15 s. Here it costs the loop only the pieces it is sent.

import { parentPort, workerData } from 'node:worker_threads';
import { recordingFileChunks } from '../../../structs/formats/clrscope-file/save-recording.js';
import { UserError } from '../errors/user-error.js';
import { readRecordingFile } from '../export/recording-file.js';
import { CHUNK_TAKEN, CHUNKS_IN_FLIGHT, type OpenFileMessage, type OpenFileRequest } from './open-file-messages.js';

const port = parentPort;
if (port === null) throw new Error('open-file-worker.js runs only as a worker thread.');

let credit = CHUNKS_IN_FLIGHT;
let wake: (() => void) | undefined;
port.on('message', (message: unknown) => {
  if (message !== CHUNK_TAKEN) return;
  credit++;
  wake?.();
});

function post(message: OpenFileMessage, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

async function run(request: OpenFileRequest): Promise<void> {
  try {
    const opened = await readRecordingFile(request.path, (_step, done, total) => post({ type: 'progress', phase: 'reading', done, total }));
    const chunks = recordingFileChunks(opened.recording, [], { progress: (done, total) => post({ type: 'progress', phase: 'preparing', done, total }) });
    for (const chunk of chunks) {
      while (credit === 0) await new Promise<void>((resolve) => { wake = resolve; });
      credit--;
      // A piece of its own, handed over rather than copied again.
      const piece = chunk.slice();
      post({ type: 'chunk', bytes: piece }, [piece.buffer]);
    }
    post({ type: 'done', format: opened.format, counters: opened.counters });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err), user: err instanceof UserError });
  }
}

void run(workerData as OpenFileRequest);
