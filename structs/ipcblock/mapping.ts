// Maps a counters block into the main process, read-only. The one place besides layout.ts that
// touches koffi, as DESIGN.md wants: reading a counter is reading this memory, no API between.
//
// Linux: clrscope's profiler publishes /dev/shm/clrscope-<pid> (mode 0600).
// Windows: clrscope's profiler publishes the file mapping Local\clrscope-<pid>; a .NET Framework
// process publishes its own block table as Cor_Private_IPCBlock_v4_<pid> (the runtime's writer
// namespace), read here the same way. Windows paths are written but unverified (README).

import { closeSync, fstatSync, openSync } from 'node:fs';
import koffi, { type LibraryHandle } from 'koffi';
import { IpcBlockError } from './ipc-block-error.js';

export interface MappedBlock {
  /** A live view of the shared memory: reads see the writer's latest stores. */
  readonly bytes: Uint8Array;
  /** Where it came from, for messages. */
  readonly source: string;
  close(): void;
}

const PROT_READ = 1;
const MAP_SHARED = 1;
const FILE_MAP_READ = 4;

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

/** Maps a file (a POSIX shared memory object) read-only; throws IpcBlockError with one sentence. */
export function mapBlockFile(path: string, minimumBytes: number): MappedBlock {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new IpcBlockError('missing', `There is no counters block at ${path}.`);
    if (code === 'EACCES' || code === 'EPERM') throw new IpcBlockError('missing', `The counters block at ${path} belongs to another user.`);
    throw new IpcBlockError('missing', `Cannot open the counters block at ${path}: ${(err as Error).message}.`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size < minimumBytes) {
      throw new IpcBlockError('truncated', `The counters block at ${path} has ${size} bytes, fewer than the ${minimumBytes} a block needs.`);
    }
    const { mmap, munmap } = posix();
    const address = mmap(null, size, PROT_READ, MAP_SHARED, fd, 0);
    if (address === null || koffi.address(address) === 0xffffffffffffffffn) {
      throw new IpcBlockError('missing', `Cannot map the counters block at ${path}.`);
    }
    const bytes = new Uint8Array(koffi.view(address, size));
    let open = true;
    return {
      bytes,
      source: path,
      close() {
        if (!open) return;
        open = false;
        munmap(address, size);
      },
    };
  } finally {
    // The mapping keeps the memory; the descriptor is no longer needed.
    closeSync(fd);
  }
}

/** Windows: maps a named file mapping read-only. */
export function mapNamedBlock(name: string, bytes: number): MappedBlock {
  const kernel32 = koffi.load('kernel32.dll');
  const OpenFileMappingW = kernel32.func('void * __stdcall OpenFileMappingW(uint32_t access, int inherit, const char16_t *name)');
  const MapViewOfFile = kernel32.func('void * __stdcall MapViewOfFile(void *mapping, uint32_t access, uint32_t offsetHigh, uint32_t offsetLow, size_t bytes)');
  const UnmapViewOfFile = kernel32.func('int __stdcall UnmapViewOfFile(void *address)');
  const CloseHandle = kernel32.func('int __stdcall CloseHandle(void *handle)');
  const mapping = OpenFileMappingW(FILE_MAP_READ, 0, name);
  if (mapping === null) throw new IpcBlockError('missing', `There is no counters block named ${name}.`);
  const address = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, bytes);
  if (address === null) {
    CloseHandle(mapping);
    throw new IpcBlockError('missing', `Cannot map the counters block ${name}.`);
  }
  let open = true;
  return {
    bytes: new Uint8Array(koffi.view(address, bytes)),
    source: name,
    close() {
      if (!open) return;
      open = false;
      UnmapViewOfFile(address);
      CloseHandle(mapping);
    },
  };
}
