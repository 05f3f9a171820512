// A worker thread that reads one recording file, in any format, and sends it back as the
// .clrscope stream a file session shows (a .clrscope file is passed on as it is, once checked). Parsing a file is the one long piece of work the
// workstation does on request; on its event loop, a hostile speedscope file held every other
// client (pages, API calls) for 15 s. Here it costs the loop only the pieces it is sent.

import { parentPort, workerData } from 'node:worker_threads';
import { recordingFileChunks } from '../../../structs/formats/clrscope-file/save-recording.js';
import { UserError } from '../errors/user-error.js';
import { passClrscopeFile, readFormatOf, readRecordingFile } from '../export/recording-file.js';
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

/** Sends one piece of the stream once the workstation has room for it. */
async function send(chunk: Uint8Array): Promise<void> {
  while (credit === 0) await new Promise<void>((resolve) => { wake = resolve; });
  credit--;
  // A copy of its own (a read stream's pieces may share memory), handed over rather than copied again.
  const piece = new Uint8Array(chunk);
  post({ type: 'chunk', bytes: piece }, [piece.buffer]);
}

async function run(request: OpenFileRequest): Promise<void> {
  const reading = (_step: string, done: number, total: number): void => post({ type: 'progress', phase: 'reading', done, total });
  try {
    if (readFormatOf(request.path) === 'clrscope') {
      // The file is the stream already: passed on as it is checked, its samples never held.
      const { counters } = await passClrscopeFile(request.path, reading, send);
      post({ type: 'done', format: 'clrscope', counters });
      return;
    }
    const opened = await readRecordingFile(request.path, reading);
    const chunks = recordingFileChunks(opened.recording, [], { progress: (done, total) => post({ type: 'progress', phase: 'preparing', done, total }) });
    for (const chunk of chunks) await send(chunk);
    post({ type: 'done', format: opened.format, counters: opened.counters });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err), user: err instanceof UserError });
  }
}

void run(workerData as OpenFileRequest);
