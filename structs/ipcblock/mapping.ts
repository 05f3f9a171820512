// Maps a counters block into the main process, read-only. With layout.ts, native-memory.ts and
// win32-api.ts, the only place that touches koffi, as ARCHITECTURE.md wants: reading a counter is
// reading this memory, no API between — in place through a view where the runtime allows one
// (plain Node), by one native copy per read where it does not (Electron's main process, whose
// V8 memory cage forbids ArrayBuffers over outside memory); native-memory.ts chooses.
//
// Linux: clrscope's profiler publishes /dev/shm/clrscope-<pid> (mode 0600).
// Windows: clrscope's profiler publishes the file mapping Local\clrscope-<pid> (mapNamedBlock); a
// .NET Framework 4.x process publishes its own block table Cor_SxSPublic_IPCBlock in a private
// namespace (mapFrameworkBlock, through framework-opener.ts). The Windows paths are written,
// type-checked and unit-tested with a fake Win32 API, but unverified on a live machine (README.md).

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import koffi, { type LibraryHandle } from 'koffi';
import { checkDestination, checkRead, closedError, type MappedBlock } from './block-memory.js';
import type { BlockChoiceOptions } from './block-table.js';
import { FILE_MAP_READ, type FrameworkBlock, openFrameworkBlock, win32ErrorText } from './framework-opener.js';
import { IpcBlockError } from './ipc-block-error.js';
import { type BlockAccessMode, blockAccessFromEnv, nativeMemory } from './native-memory.js';
import { win32Api } from './win32-api.js';

export type { BlockAccess, BlockMemory, MappedBlock } from './block-memory.js';
export type { BlockAccessMode } from './native-memory.js';

export interface MapOptions {
  /** How reads reach the mapping: default CLRSCOPE_BLOCK_ACCESS, else `auto` (a view when allowed, else copies). */
  readonly access?: BlockAccessMode;
  /**
   * The user the block must belong to (default ours): root reading the block of another user's
   * process names that process's user, whose profiler made it.
   */
  readonly owner?: number;
}

const PROT_READ = 1;
const MAP_SHARED = 1;

type NativeFunction = ReturnType<LibraryHandle['func']>;

let libc: LibraryHandle | undefined;
function posix(): { mmap: NativeFunction; munmap: NativeFunction } {
  libc ??= koffi.load(process.platform === 'darwin' ? 'libc.dylib' : 'libc.so.6');
  return {
    mmap: libc.func('void *mmap(void *addr, size_t length, int prot, int flags, int fd, intptr_t offset)'),
    munmap: libc.func('int munmap(void *addr, size_t length)'),
  };
}

/** The shared-memory path clrscope's profiler uses for a process on Linux. */
export function blockPathForPid(pid: number): string {
  return `/dev/shm/clrscope-${pid}`;
}

/**
 * Opens a counters block file (a POSIX shared memory object) read-only: never through a link,
 * and only when it is a regular file of this user (or of `owner`) that nobody else may read or write, as
 * clrscope's profiler creates it (0600). Anything else is refused, since another user could
 * have made it to feed the workstation a block of their own. Then either reads it through the
 * descriptor (`read`, the default: a block truncated later reads short and is refused) or maps
 * exactly the size fstat gave (`auto`, `view`, `copy`: faster, but a block truncated while
 * mapped would raise SIGBUS). IpcBlockError with one sentence.
 */
export function mapBlockFile(path: string, minimumBytes: number, options: MapOptions = {}): MappedBlock {
  const mode = options.access ?? blockAccessFromEnv(process.env, 'read');
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new IpcBlockError('missing', `There is no counters block at ${path}.`);
    if (code === 'EACCES' || code === 'EPERM') throw new IpcBlockError('missing', `The counters block at ${path} belongs to another user.`);
    if (code === 'ELOOP') throw new IpcBlockError('missing', `The counters block at ${path} is a symbolic link, which clrscope does not follow.`);
    throw new IpcBlockError('missing', `Cannot open the counters block at ${path}: ${(err as Error).message}.`);
  }
  let handedOver = false;
  try {
    const s = fstatSync(fd);
    const me = options.owner ?? process.getuid?.();
    if (!s.isFile()) throw new IpcBlockError('missing', `The counters block at ${path} is not a regular file.`);
    if (me !== undefined && s.uid !== me) {
      throw new IpcBlockError('missing', `The counters block at ${path} belongs to another user (uid ${s.uid}), so it is not clrscope's: it is not read.`);
    }
    if ((s.mode & 0o077) !== 0) {
      throw new IpcBlockError('missing', `The counters block at ${path} is open to other users (mode ${(s.mode & 0o777).toString(8)}), so it is not clrscope's (0600): it is not read.`);
    }
    const size = s.size;
    if (size < minimumBytes) {
      throw new IpcBlockError('truncated', `The counters block at ${path} has ${size} bytes, fewer than the ${minimumBytes} a block needs.`);
    }
    if (mode === 'read') {
      handedOver = true;
      return descriptorMemory(fd, size, path);
    }
    const { mmap, munmap } = posix();
    const address = mmap(null, size, PROT_READ, MAP_SHARED, fd, 0);
    if (address === null || koffi.address(address) === 0xffffffffffffffffn) {
      throw new IpcBlockError('missing', `Cannot map the counters block at ${path}.`);
    }
    try {
      // The option, when given, else nativeMemory reads the environment itself (and names it in its messages).
      return nativeMemory(koffi.address(address), size, { source: path, access: options.access, release: () => munmap(address, size) });
    } catch (err) {
      munmap(address, size);
      throw err;
    }
  } finally {
    // A mapping keeps the memory; the descriptor is needed only when reads go through it.
    if (!handedOver) closeSync(fd);
  }
}

/** A block read through its descriptor with positioned reads: a short read means the file shrank. */
function descriptorMemory(fd: number, size: number, source: string): MappedBlock {
  const word = new Uint8Array(4);
  const wordView = new DataView(word.buffer);
  let open = true;
  const shrank = (): IpcBlockError => new IpcBlockError('truncated', `The counters block at ${source} shrank while it was being read.`);
  return {
    size,
    source,
    access: 'read',
    readInt32(offset: number): number {
      if (!open) throw closedError(source);
      checkRead(offset, 4, size);
      if (readSync(fd, word, 0, 4, offset) !== 4) throw shrank();
      return wordView.getInt32(0, true);
    },
    read(into: Uint8Array, offset: number, length: number): void {
      if (!open) throw closedError(source);
      checkRead(offset, length, size);
      checkDestination(into, length);
      if (readSync(fd, into, 0, length, offset) !== length) throw shrank();
    },
    close(): void {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** Windows: maps `bytes` of a named file mapping read-only; IpcBlockError `missing` (one sentence) when it cannot. */
export function mapNamedBlock(name: string, bytes: number, options: MapOptions = {}): MappedBlock {
  const api = win32Api(options.access);
  const mapping = api.openFileMapping(FILE_MAP_READ, name);
  if (mapping === null) {
    const code = api.lastError();
    if (code === 2 || code === 3) throw new IpcBlockError('missing', `There is no counters block named ${name}.`);
    throw new IpcBlockError('missing', `Cannot open the counters block ${name} (${win32ErrorText(code)}).`);
  }
  const address = api.mapViewOfFile(mapping, FILE_MAP_READ, bytes);
  if (address === null) {
    const code = api.lastError();
    api.closeHandle(mapping);
    throw new IpcBlockError('missing', `Cannot map the counters block ${name} (${win32ErrorText(code)}).`);
  }
  const release = (): void => {
    api.unmapViewOfFile(address);
    api.closeHandle(mapping);
  };
  try {
    return api.memory(address, bytes, name, release);
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Windows: the perf-counter block of .NET Framework 4.x process `pid` (this process's own through
 * Cor_CLR_WRITER, another's through the runtime's private namespace), chosen in its block table
 * by block-table.ts. IpcBlockError (one sentence) when there is none to read.
 */
export function mapFrameworkBlock(pid: number, options: BlockChoiceOptions & MapOptions = {}): FrameworkBlock {
  return openFrameworkBlock(win32Api(options.access), pid, options);
}
