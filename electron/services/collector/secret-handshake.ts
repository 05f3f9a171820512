// The collector's sockets: listening on a Unix socket or loopback TCP, and the handshake a TCP
// connection must make first (the run's secret; structs/wire/PROTOCOL.md, "Connection"), since
// loopback TCP is open to every user of the machine.

import { timingSafeEqual } from 'node:crypto';
import type { Server, Socket } from 'node:net';

/**
 * Holds a TCP connection until it has sent the run's secret: then hands it on with whatever
 * followed the secret in the same reads; on a wrong secret, an early close or the deadline it
 * closes the connection, which never becomes a stream.
 */
export function authenticate(socket: Socket, secret: Buffer, deadlineMs: number, accept: (rest: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const timer = setTimeout(() => socket.destroy(), deadlineMs);
  const stop = (): void => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('close', onClose);
  };
  const onClose = (): void => stop();
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    received += chunk.length;
    if (received < secret.length) {
      // A short prefix that already differs need not be waited out.
      const head = Buffer.concat(chunks);
      if (!timingSafeEqual(head, secret.subarray(0, head.length))) {
        stop();
        socket.destroy();
      }
      return;
    }
    stop();
    const all = Buffer.concat(chunks);
    if (!timingSafeEqual(all.subarray(0, secret.length), secret)) {
      socket.destroy();
      return;
    }
    // The stream's own 'data' listener takes every later read; this one's rest is handed over.
    accept(all.subarray(secret.length));
  };
  socket.on('data', onData);
  socket.on('close', onClose);
  socket.on('error', () => undefined);
}

/** Listens on a Unix socket path or a loopback TCP port, rejecting on the server's first error. */
export function listenOn(server: Server, where: string | { host: string; port: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (typeof where === 'string') server.listen(where, done);
    else server.listen(where.port, where.host, done);
  });
}

