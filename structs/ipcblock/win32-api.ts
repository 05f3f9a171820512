// The Win32 calls behind framework-opener.ts and mapNamedBlock, bound with koffi. Windows only:
// nothing here loads a DLL until win32Api() is called, and win32Api() refuses on other systems,
// so the unit tests on Linux never run native Windows code. The prototypes are kept as data so a
// test can parse every one with koffi and compile them against the Windows SDK headers of mingw
// (win32-api.test.ts); they are not verified against a live Windows process (README.md).
import koffi, { type LibraryHandle } from 'koffi';
import { IpcBlockError } from './ipc-block-error.js';
import { type FrameworkIpcApi, type NativeHandle, sidLength } from './framework-opener.js';
import { type BlockAccessMode, nativeMemory } from './native-memory.js';

export type Win32Dll = 'kernel32.dll' | 'advapi32.dll';

export interface Win32Prototype {
  readonly dll: Win32Dll;
  /** A C prototype in koffi's syntax, with the Win32 calling convention (__stdcall; ignored on x64). */
  readonly prototype: string;
}

// Win32 types as koffi declares them: HANDLE, PSID, LPVOID = void *; DWORD, ULONG = uint32_t;
// BOOL = int; BOOLEAN = uint8_t; LPCWSTR = const char16_t *; SIZE_T = size_t; the two enums
// (WELL_KNOWN_SID_TYPE, TOKEN_INFORMATION_CLASS) are passed as int.
export const WIN32_PROTOTYPES = {
  GetLastError: { dll: 'kernel32.dll', prototype: 'uint32_t __stdcall GetLastError(void)' },
  CreateBoundaryDescriptorW: { dll: 'kernel32.dll', prototype: 'void * __stdcall CreateBoundaryDescriptorW(const char16_t *Name, uint32_t Flags)' },
  AddSIDToBoundaryDescriptor: { dll: 'kernel32.dll', prototype: 'int __stdcall AddSIDToBoundaryDescriptor(_Inout_ void **BoundaryDescriptor, void *RequiredSid)' },
  DeleteBoundaryDescriptor: { dll: 'kernel32.dll', prototype: 'void __stdcall DeleteBoundaryDescriptor(void *BoundaryDescriptor)' },
  OpenPrivateNamespaceW: { dll: 'kernel32.dll', prototype: 'void * __stdcall OpenPrivateNamespaceW(void *lpBoundaryDescriptor, const char16_t *lpAliasPrefix)' },
  ClosePrivateNamespace: { dll: 'kernel32.dll', prototype: 'uint8_t __stdcall ClosePrivateNamespace(void *Handle, uint32_t Flags)' },
  OpenFileMappingW: { dll: 'kernel32.dll', prototype: 'void * __stdcall OpenFileMappingW(uint32_t dwDesiredAccess, int bInheritHandle, const char16_t *lpName)' },
  MapViewOfFile: { dll: 'kernel32.dll', prototype: 'void * __stdcall MapViewOfFile(void *hFileMappingObject, uint32_t dwDesiredAccess, uint32_t dwFileOffsetHigh, uint32_t dwFileOffsetLow, size_t dwNumberOfBytesToMap)' },
  UnmapViewOfFile: { dll: 'kernel32.dll', prototype: 'int __stdcall UnmapViewOfFile(const void *lpBaseAddress)' },
  CloseHandle: { dll: 'kernel32.dll', prototype: 'int __stdcall CloseHandle(void *hObject)' },
  OpenProcess: { dll: 'kernel32.dll', prototype: 'void * __stdcall OpenProcess(uint32_t dwDesiredAccess, int bInheritHandle, uint32_t dwProcessId)' },
  CreateWellKnownSid: { dll: 'advapi32.dll', prototype: 'int __stdcall CreateWellKnownSid(int WellKnownSidType, void *DomainSid, void *pSid, _Inout_ uint32_t *cbSid)' },
  OpenProcessToken: { dll: 'advapi32.dll', prototype: 'int __stdcall OpenProcessToken(void *ProcessHandle, uint32_t DesiredAccess, _Out_ void **TokenHandle)' },
  GetTokenInformation: { dll: 'advapi32.dll', prototype: 'int __stdcall GetTokenInformation(void *TokenHandle, int TokenInformationClass, void *TokenInformation, uint32_t TokenInformationLength, _Out_ uint32_t *ReturnLength)' },
} as const satisfies Record<string, Win32Prototype>;

export type Win32FunctionName = keyof typeof WIN32_PROTOTYPES;

/** WELL_KNOWN_SID_TYPE WinWorldSid: Everyone, S-1-1-0. */
const WIN_WORLD_SID = 1;
/** SECURITY_MAX_SID_SIZE. */
const SECURITY_MAX_SID_SIZE = 68;
/** TOKEN_INFORMATION_CLASS TokenAppContainerSid. */
const TOKEN_APP_CONTAINER_SID = 31;
const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
const TOKEN_QUERY = 0x0008;
// TOKEN_APPCONTAINER_INFORMATION is one PSID followed by the SID; big enough for both, and large
// enough that V8 keeps its bytes off the moving heap while the SID pointer into them is read.
const TOKEN_INFO_BYTES = 256;

type NativeFunction = ReturnType<LibraryHandle['func']>;
type Bound = Record<Win32FunctionName, NativeFunction>;

let bound: Bound | undefined;

function bind(): Bound {
  if (process.platform !== 'win32') {
    throw new IpcBlockError('missing', 'Windows file mappings and private namespaces can be opened only on Windows.');
  }
  if (bound !== undefined) return bound;
  const libraries = new Map<Win32Dll, LibraryHandle>();
  const fns: Partial<Bound> = {};
  for (const [name, { dll, prototype }] of Object.entries(WIN32_PROTOTYPES) as [Win32FunctionName, Win32Prototype][]) {
    let library = libraries.get(dll);
    if (library === undefined) {
      library = koffi.load(dll);
      libraries.set(dll, library);
    }
    fns[name] = library.func(prototype);
  }
  bound = fns as Bound;
  return bound;
}

/** koffi 3 hands pointers over as BigInt and NULL as null. */
function handleOf(value: unknown): NativeHandle | null {
  if (typeof value === 'bigint') return value === 0n ? null : value;
  return null;
}

function appContainerSidOf(f: Bound, pid: number): Uint8Array | null {
  const target = handleOf(f.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid));
  if (target === null) return null;
  try {
    const token: unknown[] = [null];
    if (f.OpenProcessToken(target, TOKEN_QUERY, token) === 0) return null;
    const tokenHandle = handleOf(token[0]);
    if (tokenHandle === null) return null;
    try {
      const info = new Uint8Array(TOKEN_INFO_BYTES);
      const returned = [0];
      if (f.GetTokenInformation(tokenHandle, TOKEN_APP_CONTAINER_SID, info, info.length, returned) === 0) return null;
      // A process outside any AppContainer gets a NULL SID pointer.
      const sid = handleOf(koffi.decode(info, 0, 'void *'));
      if (sid === null) return null;
      const length = sidLength(koffi.decode(sid, 'uint8_t', 8) as Uint8Array);
      if (length === null) return null;
      return Uint8Array.from(koffi.decode(sid, 'uint8_t', length) as Uint8Array);
    } finally {
      f.CloseHandle(tokenHandle);
    }
  } finally {
    f.CloseHandle(target);
  }
}

/**
 * The real Win32 API for framework-opener.ts (and mapNamedBlock). Loads kernel32 and advapi32 on
 * first use; IpcBlockError `missing` on any other OS. `access`: how mapped memory is read
 * (native-memory.ts; default CLRSCOPE_BLOCK_ACCESS, else a view when the runtime allows one).
 */
export function win32Api(access?: BlockAccessMode): FrameworkIpcApi {
  const f = bind();
  return {
    currentPid: process.pid,
    lastError: () => Number(f.GetLastError()),
    createBoundaryDescriptor: (name, flags) => handleOf(f.CreateBoundaryDescriptorW(name, flags)),
    addSidToBoundaryDescriptor: (descriptor, sid) => {
      const inout: unknown[] = [descriptor];
      if (f.AddSIDToBoundaryDescriptor(inout, sid) === 0) return null;
      return handleOf(inout[0]);
    },
    deleteBoundaryDescriptor: (descriptor) => {
      f.DeleteBoundaryDescriptor(descriptor);
    },
    worldSid: () => {
      const sid = new Uint8Array(SECURITY_MAX_SID_SIZE);
      const size = [sid.length];
      if (f.CreateWellKnownSid(WIN_WORLD_SID, null, sid, size) === 0) return null;
      return sid.slice(0, size[0]);
    },
    appContainerSidOf: (pid) => appContainerSidOf(f, pid),
    openPrivateNamespace: (descriptor, alias) => handleOf(f.OpenPrivateNamespaceW(descriptor, alias)),
    closePrivateNamespace: (namespace, flags) => f.ClosePrivateNamespace(namespace, flags) !== 0,
    openFileMapping: (access, name) => handleOf(f.OpenFileMappingW(access, 0, name)),
    mapViewOfFile: (mapping, access, bytes) => handleOf(f.MapViewOfFile(mapping, access, 0, 0, bytes)),
    memory: (address, bytes, source, release) => nativeMemory(address, bytes, { source, release, access }),
    unmapViewOfFile: (address) => f.UnmapViewOfFile(address) !== 0,
    closeHandle: (handle) => f.CloseHandle(handle) !== 0,
  };
}
