// Which of a collector's streams goes to the spool: the first recorded one, until the stream
// of the process the session is about (the launched pid) arrives, when the spool starts over
// with that one. The collector hands a stream's chunks over from its first byte, so starting
// over loses nothing.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import type { StreamSpool } from './stream-spool.js';

export function spoolListener(spool: StreamSpool, preferredPid: () => number | undefined): { listener: ChunkListener; spooled: () => CollectedStream | undefined } {
  let current: CollectedStream | undefined;
  const listener: ChunkListener = (stream, chunk) => {
    if (current === undefined) {
      current = stream;
    } else if (stream !== current) {
      const preferred = preferredPid();
      if (preferred === undefined || stream.pid !== preferred || current.pid === preferred) return;
      spool.restart();
      current = stream;
    }
    spool.push(chunk);
  };
  return { listener, spooled: () => current };
}
