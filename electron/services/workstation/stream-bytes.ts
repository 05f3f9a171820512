// A session's wire stream as it arrived, kept in memory so any client can ask for it from byte 0
// (a renderer that reloads starts over) while new bytes keep arriving.

export interface StoredChunk {
  offset: number;
  chunk: Uint8Array;
}

/** Replayed chunks are joined up to this size, so a long recording replays in few events. */
export const REPLAY_CHUNK_BYTES = 1 << 20;

export class StreamBytes {
  private readonly chunks: Uint8Array[] = [];
  private total = 0;

  get length(): number {
    return this.total;
  }

  /** Keeps a copy of `chunk` (tight: its own buffer) and returns it with its offset. */
  append(chunk: Uint8Array): StoredChunk {
    const copy = chunk.slice();
    const offset = this.total;
    this.chunks.push(copy);
    this.total += copy.length;
    return { offset, chunk: copy };
  }

  /** Everything stored, in order, as chunks of at most `maxBytes` (single larger chunks stay whole). */
  *replay(maxBytes = REPLAY_CHUNK_BYTES): Generator<StoredChunk> {
    let offset = 0;
    let group: Uint8Array[] = [];
    let groupBytes = 0;
    const flush = (): StoredChunk => {
      const chunk = group.length === 1 ? group[0] : joined(group, groupBytes);
      const out = { offset, chunk };
      offset += groupBytes;
      group = [];
      groupBytes = 0;
      return out;
    };
    for (const chunk of this.chunks) {
      if (groupBytes > 0 && groupBytes + chunk.length > maxBytes) yield flush();
      group.push(chunk);
      groupBytes += chunk.length;
    }
    if (groupBytes > 0) yield flush();
  }
}

function joined(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
