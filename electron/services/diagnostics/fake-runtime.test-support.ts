// A stand-in for a .NET runtime's diagnostics server, for tests: listens on a Unix socket,
// reads one whole request per connection (header size), records it and answers as told.

import { createServer, type Socket } from 'node:net';
import { decodeHeader } from '../../../structs/diagnostics/codec.js';
import { IPC_HEADER_SIZE } from '../../../structs/diagnostics/protocol.js';

/**
 * What to do with a request: reply with bytes (optionally in pieces), say nothing, or hang up.
 * `keepOpen` leaves the connection open after the reply, as a runtime does for an EventPipe
 * session's stream, until the client drops it.
 */
export type FakeAnswer = Uint8Array | { chunks: Uint8Array[]; keepOpen?: boolean } | 'hang' | 'close';

export interface FakeRuntime {
  readonly path: string;
  /** Every request received, whole. */
  readonly requests: Uint8Array[];
  close(): Promise<void>;
}

export function startFakeRuntime(path: string, answer: (request: Uint8Array) => FakeAnswer): Promise<FakeRuntime> {
  const requests: Uint8Array[] = [];
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let done = false;
    socket.on('data', (chunk: Buffer) => {
      if (done) return;
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < IPC_HEADER_SIZE) return;
      const size = decodeHeader(buffered).size;
      if (buffered.length < size) return;
      done = true;
      const request = new Uint8Array(buffered.subarray(0, size));
      requests.push(request);
      const what = answer(request);
      if (what === 'hang') return;
      if (what === 'close') {
        socket.end();
        return;
      }
      const chunks = what instanceof Uint8Array ? [what] : what.chunks;
      const keepOpen = !(what instanceof Uint8Array) && what.keepOpen === true;
      // One write per chunk, each on its own tick, so the client sees them as separate reads.
      let i = 0;
      const writeNext = (): void => {
        if (i >= chunks.length) {
          if (!keepOpen) socket.end();
          return;
        }
        socket.write(chunks[i++], () => setTimeout(writeNext, 1));
      };
      writeNext();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve({
      path,
      requests,
      close: () => new Promise<void>((done) => {
        for (const s of open) s.destroy();
        server.close(() => done());
      }),
    }));
  });
}
