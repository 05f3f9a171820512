// Reading mapped memory from JavaScript, two ways (block-memory.ts has the interface):
//
// - `view`: koffi.view(address, size), an ArrayBuffer over the mapping, read in place. The fast
//   way, and what plain Node (the CLI) uses.
// - `copy`: each read is one native call that copies out of the mapping into a Uint8Array that
//   JavaScript allocated, with the mapping's address passed as an integer. Electron's main process
//   runs V8 with its memory cage ("sandbox"), which forbids ArrayBuffers over memory outside the
//   cage; there koffi.view throws ("Some runtimes (such as Electron) forbid the use of external
//   buffers. In this case, trying to create a view will trigger an exception", koffi's
//   doc/pointers.md, "External buffers (views)"). A Uint8Array JavaScript allocated lies inside
//   the cage, and native code may write into it.
//
// Which one: `auto` (the default) tries a view once, on the first mapping, and remembers whether
// the runtime allowed it; `view` and `copy` force one. CLRSCOPE_BLOCK_ACCESS=auto|view|copy sets
// the default, so the copying path can be tested in plain Node.
//
// How koffi passes the arguments (koffi 3.3, doc/pointers.md "Handling void pointers": "Buffers
// and typed JS arrays can be used as values in place everywhere a pointer is expected"; in the
// source, CallData::PushPointer hands a TypedArray's own data pointer, byteOffset included, to
// a `void *` parameter without copying, since a void/uint8 pointee needs no conversion;
// koffi's doc/primitives.md: `uintptr_t` is an unsigned pointer-sized integer taking a Number, or a
// BigInt). The tests check both on a real mapping, a subarray destination included.

import koffi, { type LibraryHandle } from 'koffi';
import { type BlockAccess, type MappedBlock, checkDestination, checkRead, closedError, memoryFromBytes } from './block-memory.js';
import { IpcBlockError } from './ipc-block-error.js';

/** `read`: through the file descriptor, no mapping (files only); `auto`: a view when the runtime allows one, else copies; `view` / `copy`: that one, always. */
export type BlockAccessMode = 'read' | 'auto' | 'view' | 'copy';

/** The environment switch that sets the default mode. */
export const BLOCK_ACCESS_ENV = 'CLRSCOPE_BLOCK_ACCESS';

export interface CopyFunction {
  readonly library: string;
  /** koffi's C-like syntax. */
  readonly prototype: string;
}

/**
 * The copying functions, kept as data so the tests parse them and check the Windows one against
 * mingw-w64's kernel32 import library. The destination is a `void *` that receives a Uint8Array
 * (koffi passes its data pointer); the source is the mapping's address plus an offset, as a
 * pointer-sized integer, so no pointer value has to be made per read. The result (`memcpy`
 * returns its destination) is declared void: every calling convention here returns it in a
 * register the caller may ignore, and koffi then makes no BigInt per call.
 */
export const COPY_FUNCTIONS = {
  /** glibc: `void *memcpy(void *dest, const void *src, size_t n)`. */
  linux: { library: 'libc.so.6', prototype: 'void memcpy(void *dest, uintptr_t src, size_t n)' },
  /** macOS libSystem, the same. */
  darwin: { library: 'libc.dylib', prototype: 'void memcpy(void *dest, uintptr_t src, size_t n)' },
  /**
   * kernel32: `VOID RtlMoveMemory(VOID UNALIGNED *Destination, const VOID UNALIGNED *Source,
   * SIZE_T Length)`, exported by kernel32.dll (forwarded to ntdll), __stdcall on 32-bit Windows
   * (`_RtlMoveMemory@12` in the import library). The SDK headers only define it as a macro for
   * memmove, so it is called through the DLL export, which every Windows has.
   */
  win32: { library: 'kernel32.dll', prototype: 'void __stdcall RtlMoveMemory(void *Destination, uintptr_t Source, size_t Length)' },
} as const satisfies Record<string, CopyFunction>;

type CopyOut = (into: Uint8Array, source: number | bigint, length: number) => void;

let copyOut: CopyOut | undefined;
function copier(): CopyOut {
  if (copyOut !== undefined) return copyOut;
  const { library, prototype } = process.platform === 'win32' ? COPY_FUNCTIONS.win32 : process.platform === 'darwin' ? COPY_FUNCTIONS.darwin : COPY_FUNCTIONS.linux;
  const lib: LibraryHandle = koffi.load(library);
  copyOut = lib.func(prototype) as CopyOut;
  return copyOut;
}

/**
 * The mode CLRSCOPE_BLOCK_ACCESS asks for (`fallback` when unset or empty: `read` for a file,
 * `auto` for a named mapping, which has no descriptor to read); RangeError, one sentence, for
 * anything else.
 */
export function blockAccessFromEnv(env: NodeJS.ProcessEnv = process.env, fallback: BlockAccessMode = 'auto'): BlockAccessMode {
  const value = env[BLOCK_ACCESS_ENV];
  if (value === undefined || value === '') return fallback;
  if (value === 'read' || value === 'auto' || value === 'view' || value === 'copy') return value;
  throw new RangeError(`${BLOCK_ACCESS_ENV} must be read, auto, view or copy, not '${value}'.`);
}

// Whether this runtime allows koffi.view over outside memory: unknown until the first try.
let viewsAllowed: boolean | undefined;

/** What the first try found: true (views work), false (the runtime refused one), undefined (not tried yet). */
export function externalViewsAllowed(): boolean | undefined {
  return viewsAllowed;
}

function tryView(address: bigint, size: number): Uint8Array | null {
  if (viewsAllowed === false) return null;
  try {
    const bytes = new Uint8Array(koffi.view(address, size));
    viewsAllowed = true;
    return bytes;
  } catch {
    viewsAllowed = false;
    return null;
  }
}

export interface NativeMemoryOptions {
  /** For messages. */
  readonly source: string;
  /** Unmaps; runs once, on the first close(). */
  readonly release: () => void;
  /** Default: CLRSCOPE_BLOCK_ACCESS, else `auto`. */
  readonly access?: BlockAccessMode;
}

/**
 * `size` bytes of mapped memory at `address` (a pointer from mmap or MapViewOfFile), read live.
 * The caller still owns the mapping until the result exists; after that, close() releases it.
 * IpcBlockError `missing` when a view is forced and the runtime forbids it.
 */
export function nativeMemory(address: bigint, size: number, options: NativeMemoryOptions): MappedBlock {
  const requested = options.access ?? blockAccessFromEnv();
  // A mapping has no descriptor to read: `read` means the safest mapped way, copies.
  const mode = requested === 'read' ? 'copy' : requested;
  if (mode !== 'copy') {
    const bytes = tryView(address, size);
    if (bytes !== null) return memoryFromBytes(bytes, { source: options.source, access: 'view', release: options.release });
    if (mode === 'view') {
      const asker = options.access === undefined ? `${BLOCK_ACCESS_ENV}=view` : 'the access option';
      throw new IpcBlockError('missing', `This runtime forbids ArrayBuffers over outside memory, so the counters block at ${options.source} cannot be read through a view, as ${asker} asks.`);
    }
  }
  return copyingMemory(address, size, options.source, options.release);
}

/** Reads by copying out of the mapping at each call; never makes an ArrayBuffer over it. */
function copyingMemory(address: bigint, size: number, source: string, release: () => void): MappedBlock {
  const copy = copier();
  const base = koffi.address(address);
  // User-space addresses fit in 2^53 on every 64-bit system today; a Number makes no BigInt per read.
  const small = base + BigInt(size) <= BigInt(Number.MAX_SAFE_INTEGER);
  const baseNumber = Number(base);
  const at = small ? (offset: number): number | bigint => baseNumber + offset : (offset: number): number | bigint => base + BigInt(offset);
  const access: BlockAccess = 'copy';
  let open = true;
  return {
    size,
    source,
    access,
    readInt32(offset: number): number {
      if (!open) throw closedError(source);
      checkRead(offset, 4, size);
      // A native load of the 4 bytes, made now (the counter, at offset 0, is aligned: one load):
      // koffi.decode reads the memory and returns a Number, with no ArrayBuffer over it.
      return koffi.decode.int32le(at(offset));
    },
    read(into: Uint8Array, offset: number, length: number): void {
      if (!open) throw closedError(source);
      checkRead(offset, length, size);
      checkDestination(into, length);
      copy(into, at(offset), length);
    },
    close(): void {
      if (!open) return;
      open = false;
      release();
    },
  };
}
