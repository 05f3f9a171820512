// Reading a counters block through an accessor instead of a live byte array. Pure: no koffi, no
// Node. The mapped memory lies outside V8's heap, and Electron's main process runs V8 with its
// memory cage ("sandbox"), which forbids ArrayBuffers over outside memory: there koffi.view
// throws, and every read has to copy out through a native call (native-memory.ts). Everything
// that reads a block — the sequence lock (consistent-read.ts), the block table's choice
// (block-table.ts), the counters source — reads through this interface, so both ways of reaching
// the memory, and plain byte arrays (tests, fakes), are one type.

/**
 * How reads reach the memory:
 * - `read`: no mapping: each read is a positioned read(2) of the shared memory's file
 *   descriptor; a block someone truncates reads short and is refused, where a mapping would
 *   take the process down with SIGBUS (the default for /dev/shm blocks);
 * - `view`: a live ArrayBuffer over the mapping (koffi.view), read in place; plain Node;
 * - `copy`: each read copies out of the mapping with one native call (memcpy, RtlMoveMemory); used
 *   where external ArrayBuffers are forbidden (Electron), or when asked for;
 * - `bytes`: a JavaScript byte array (tests, fakes, copies).
 */
export type BlockAccess = 'read' | 'view' | 'copy' | 'bytes';

/** The reads a sequence-locked reader needs. Every call reads the memory afresh. */
export interface BlockMemory {
  /** Readable bytes, from offset 0. */
  readonly size: number;
  /** The little-endian int32 at `offset`, read now (never cached): the sequence counter. RangeError outside the memory. */
  readInt32(offset: number): number;
  /** Copies `length` bytes at `offset` into `into[0 .. length)`. RangeError outside the memory, or when `into` is shorter. */
  read(into: Uint8Array, offset: number, length: number): void;
}

/** A mapped (or simulated) block: the reads, where it came from, and how to let go of it. */
export interface MappedBlock extends BlockMemory {
  /** Where it came from, for messages. */
  readonly source: string;
  readonly access: BlockAccess;
  /** Releases the memory; once (later calls do nothing). Reads after it throw instead of touching unmapped memory. */
  close(): void;
}

export interface MemoryOptions {
  /** For messages (default 'bytes'). */
  readonly source?: string;
  /** Default 'bytes'; native-memory.ts passes 'view' for a koffi view. */
  readonly access?: BlockAccess;
  /** Runs once, on the first close(). */
  readonly release?: () => void;
}

/**
 * Checks a read of `length` bytes at `offset` against a memory of `size` bytes: whole numbers,
 * inside. A read past the end of a mapping would crash the process, not throw, so every
 * implementation checks before it reads.
 */
export function checkRead(offset: number, length: number, size: number): void {
  // `>>> 0` keeps whole numbers from 0 to 2^32 - 1 unchanged and changes everything else.
  if (offset >>> 0 !== offset || length >>> 0 !== length || offset + length > size) {
    throw new RangeError(`a read of ${length} bytes at offset ${offset} is outside the ${size} bytes of the block`);
  }
}

/** Checks that `into` can take `length` bytes (a native copy would write past its end). */
export function checkDestination(into: Uint8Array, length: number): void {
  if (into.length < length) throw new RangeError(`the copy buffer has ${into.length} bytes, fewer than the ${length} to read`);
}

/** Thrown by reads after close(): the memory may be unmapped. */
export function closedError(source: string): Error {
  return new Error(`The counters block at ${source} was read after it was closed.`);
}

/**
 * Reads a byte array in place: the adapter for tests and fakes (`bytes`), and, over a koffi view
 * of a mapping, the fast way to read live memory (`view`). Live: a write into `bytes` shows in the
 * next read.
 */
export function memoryFromBytes(bytes: Uint8Array, options: MemoryOptions = {}): MappedBlock {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = bytes.length;
  const source = options.source ?? 'bytes';
  const release = options.release;
  let open = true;
  // The whole-block copy is the hot read: keep its source subarray instead of making one each time.
  let lastOffset = -1;
  let lastLength = -1;
  let lastRange = bytes;
  return {
    size,
    source,
    access: options.access ?? 'bytes',
    readInt32(offset: number): number {
      if (!open) throw closedError(source);
      checkRead(offset, 4, size);
      return view.getInt32(offset, true);
    },
    read(into: Uint8Array, offset: number, length: number): void {
      if (!open) throw closedError(source);
      checkRead(offset, length, size);
      checkDestination(into, length);
      if (offset !== lastOffset || length !== lastLength) {
        lastRange = bytes.subarray(offset, offset + length);
        lastOffset = offset;
        lastLength = length;
      }
      into.set(lastRange);
    },
    close(): void {
      if (!open) return;
      open = false;
      release?.();
    },
  };
}

/** A byte array or an accessor, for the pure functions that take either. */
export type BlockBytes = BlockMemory | Uint8Array;

/** An accessor for either (a byte array is read in place). */
export function asMemory(memory: BlockBytes): BlockMemory {
  return memory instanceof Uint8Array ? memoryFromBytes(memory) : memory;
}

/** The `size` bytes at `offset` of `memory`, read live through it (a window, not a copy). */
export function memoryWindow(memory: BlockMemory, offset: number, size: number): BlockMemory {
  checkRead(offset, size, memory.size);
  return {
    size,
    readInt32(at: number): number {
      checkRead(at, 4, size);
      return memory.readInt32(offset + at);
    },
    read(into: Uint8Array, at: number, length: number): void {
      checkRead(at, length, size);
      memory.read(into, offset + at, length);
    },
  };
}

/**
 * A block inside a mapped table (the .NET Framework's 64 KiB table): reads go to the table at
 * `offset`, live; close() closes the table.
 */
export function blockInside(table: MappedBlock, offset: number, size: number, source: string): MappedBlock {
  const window = memoryWindow(table, offset, size);
  return {
    size,
    source,
    access: table.access,
    readInt32: (at) => window.readInt32(at),
    read: (into, at, length) => window.read(into, at, length),
    close: () => table.close(),
  };
}
