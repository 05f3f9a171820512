// Opening the block table of a .NET Framework 4.x process on Windows, as a sequence of Win32
// calls against an interface (FrameworkIpcApi). The sequence, the names, the clean-up and the
// error sentences live here, free of koffi, so they are unit-tested on any OS with a fake API;
// win32-api.ts binds the interface to kernel32/advapi32 through koffi (Windows only).
//
// What the runtime does (README.md, "Opening the .NET Framework block table", has the sources):
// - it creates a private namespace whose boundary descriptor is named Cor_CLR_IPCBlock_<pid>
//   (decimal pid) and holds the Everyone SID (S-1-1-0), created with the flag that adds the
//   caller's AppContainer SID (Windows 8 and later); its own alias for it is Cor_CLR_WRITER;
// - in it, the 64 KiB file mapping Cor_SxSPublic_IPCBlock, so inside the process the table is
//   Cor_CLR_WRITER\Cor_SxSPublic_IPCBlock; it never closes the namespace, so readers can open it;
// - another process rebuilds the same boundary descriptor (adding the target's AppContainer SID
//   when the target runs in one), opens the namespace under its own alias Cor_CLR_READER, opens
//   Cor_CLR_READER\Cor_SxSPublic_IPCBlock with FILE_MAP_READ, maps it, then closes the namespace
//   (without destroying it) and deletes the descriptor; the mapping stays valid.
import { IpcBlockError } from './ipc-block-error.js';
import { type BlockChoice, type BlockChoiceOptions, chooseBlock } from './block-table.js';
import { type MappedBlock, blockInside } from './block-memory.js';
import { IPC_BLOCK_SIZE, IPC_BLOCK_TABLE_SIZE } from './layout.js';
import { clause } from '../text/clause.js';

/** The boundary descriptor's name: the runtime formats the pid in decimal. */
export function boundaryDescriptorName(pid: number): string {
  return `Cor_CLR_IPCBlock_${pid}`;
}
/** The alias the runtime gives its own namespace (valid inside the runtime's process only). */
export const WRITER_NAMESPACE_PREFIX = 'Cor_CLR_WRITER';
/** The alias the runtime's reader gives the namespace it opens. */
export const READER_NAMESPACE_PREFIX = 'Cor_CLR_READER';
/** The file mapping's name inside the namespace. */
export const BLOCK_TABLE_OBJECT_NAME = 'Cor_SxSPublic_IPCBlock';
/** The name OpenFileMappingW takes: the namespace alias, a backslash, the object. */
export function blockTableName(prefix: string): string {
  return `${prefix}\\${BLOCK_TABLE_OBJECT_NAME}`;
}

/** CREATE_BOUNDARY_DESCRIPTOR_ADD_APPCONTAINER_SID: the runtime passes it on Windows 8 and later. */
export const CREATE_BOUNDARY_DESCRIPTOR_ADD_APPCONTAINER_SID = 0x1;
/** FILE_MAP_READ (= SECTION_MAP_READ): the only right the table is opened and mapped with. */
export const FILE_MAP_READ = 0x4;
/** ClosePrivateNamespace flags: 0 closes our handle; PRIVATE_NAMESPACE_FLAG_DESTROY (1) is never used. */
export const CLOSE_NAMESPACE_KEEP = 0;

export const ERROR_FILE_NOT_FOUND = 2;
export const ERROR_PATH_NOT_FOUND = 3;
export const ERROR_ACCESS_DENIED = 5;

/** A Win32 handle or address as koffi 3 gives it (a BigInt); null is NULL. */
export type NativeHandle = bigint;

/**
 * The Win32 calls the opener makes, one method per call (win32-api.ts binds them with koffi).
 * A method that can fail returns null or false, and `lastError()` then gives GetLastError().
 */
export interface FrameworkIpcApi {
  /** GetCurrentProcessId(). */
  readonly currentPid: number;
  lastError(): number;
  /** CreateBoundaryDescriptorW(name, flags). */
  createBoundaryDescriptor(name: string, flags: number): NativeHandle | null;
  /** AddSIDToBoundaryDescriptor(&descriptor, sid): the descriptor (the call may move it), or null. */
  addSidToBoundaryDescriptor(descriptor: NativeHandle, sid: Uint8Array): NativeHandle | null;
  /** DeleteBoundaryDescriptor(descriptor). */
  deleteBoundaryDescriptor(descriptor: NativeHandle): void;
  /** The Everyone SID (S-1-1-0) as bytes, from CreateWellKnownSid(WinWorldSid); null on failure. */
  worldSid(): Uint8Array | null;
  /**
   * The AppContainer SID of process `pid` (token information TokenAppContainerSid), or null when
   * it runs in no AppContainer or cannot be asked (the runtime goes on without it too).
   */
  appContainerSidOf(pid: number): Uint8Array | null;
  /** OpenPrivateNamespaceW(descriptor, alias). */
  openPrivateNamespace(descriptor: NativeHandle, aliasPrefix: string): NativeHandle | null;
  /** ClosePrivateNamespace(namespace, flags). */
  closePrivateNamespace(namespace: NativeHandle, flags: number): boolean;
  /** OpenFileMappingW(access, FALSE, name). */
  openFileMapping(access: number, name: string): NativeHandle | null;
  /** MapViewOfFile(mapping, access, 0, 0, bytes). */
  mapViewOfFile(mapping: NativeHandle, access: number, bytes: number): NativeHandle | null;
  /**
   * The mapped memory, read live: through a view of it, or by copying out at each read where
   * views of outside memory are forbidden (Electron); native-memory.ts decides. `release` runs
   * once, on the first close().
   */
  memory(address: NativeHandle, bytes: number, source: string, release: () => void): MappedBlock;
  /** UnmapViewOfFile(address). */
  unmapViewOfFile(address: NativeHandle): boolean;
  /** CloseHandle(handle). */
  closeHandle(handle: NativeHandle): boolean;
}

/**
 * The length of a SID from its first 8 bytes (revision 1, sub-authority count, 6-byte authority),
 * as the SID structure lays it out: 8 + 4 bytes per sub-authority. null when the bytes are not a
 * SID header (SID_MAX_SUB_AUTHORITIES is 15).
 */
export function sidLength(head: Uint8Array): number | null {
  if (head.length < 8 || head[0] !== 1 || head[1] > 15) return null;
  return 8 + 4 * head[1];
}

/** A few Win32 error codes in words, for the one sentence the user sees. */
export function win32ErrorText(code: number): string {
  switch (code) {
    case ERROR_FILE_NOT_FOUND: return 'Windows error 2, not found';
    case ERROR_PATH_NOT_FOUND: return 'Windows error 3, path not found';
    case ERROR_ACCESS_DENIED: return 'Windows error 5, access denied';
    case 6: return 'Windows error 6, invalid handle';
    case 8: return 'Windows error 8, not enough memory';
    case 87: return 'Windows error 87, invalid parameter';
    default: return `Windows error ${code}`;
  }
}

const notFound = (code: number): boolean => code === ERROR_FILE_NOT_FOUND || code === ERROR_PATH_NOT_FOUND;

const WHO_MAY_READ = 'the runtime lets only the process\'s owner, Administrators, Performance Monitor Users and Performance Log Users read it';

/** Maps the table behind an open file-mapping handle; closes the handle when it cannot. */
function mapTable(api: FrameworkIpcApi, mapping: NativeHandle, name: string, pid: number): MappedBlock {
  // Exactly the table's size: a smaller object (not the runtime's) fails here instead of being
  // read past its end.
  const address = api.mapViewOfFile(mapping, FILE_MAP_READ, IPC_BLOCK_TABLE_SIZE);
  if (address === null) {
    const code = api.lastError();
    api.closeHandle(mapping);
    throw new IpcBlockError('missing', `Cannot map the .NET Framework block table ${name} of process ${pid} (${win32ErrorText(code)}).`);
  }
  const release = (): void => {
    api.unmapViewOfFile(address);
    api.closeHandle(mapping);
  };
  try {
    return api.memory(address, IPC_BLOCK_TABLE_SIZE, `${name} of process ${pid}`, release);
  } catch (e) {
    release();
    throw e;
  }
}

/** This process's own table, through the alias the runtime created here. */
function openOwnTable(api: FrameworkIpcApi): MappedBlock {
  const pid = api.currentPid;
  const name = blockTableName(WRITER_NAMESPACE_PREFIX);
  const mapping = api.openFileMapping(FILE_MAP_READ, name);
  if (mapping === null) {
    const code = api.lastError();
    if (notFound(code)) {
      throw new IpcBlockError('missing', `This process (pid ${pid}) has no .NET Framework 4 runtime loaded: there is no ${name} (${win32ErrorText(code)}).`);
    }
    throw new IpcBlockError('missing', `Cannot open this process's .NET Framework block table ${name} (${win32ErrorText(code)}).`);
  }
  return mapTable(api, mapping, name, pid);
}

/** Another process's table, through the runtime's private namespace. */
function openOtherTable(api: FrameworkIpcApi, pid: number): MappedBlock {
  const boundary = boundaryDescriptorName(pid);
  let descriptor = api.createBoundaryDescriptor(boundary, CREATE_BOUNDARY_DESCRIPTOR_ADD_APPCONTAINER_SID);
  if (descriptor === null) {
    throw new IpcBlockError('missing', `Cannot build the boundary descriptor ${boundary} for process ${pid}'s .NET Framework counters (${win32ErrorText(api.lastError())}).`);
  }
  let namespace: NativeHandle | null = null;
  try {
    const everyone = api.worldSid();
    if (everyone === null) {
      throw new IpcBlockError('missing', `Cannot create the Everyone SID for process ${pid}'s .NET Framework counters (${win32ErrorText(api.lastError())}).`);
    }
    const sids = [everyone];
    const container = api.appContainerSidOf(pid);
    if (container !== null) sids.push(container);
    for (const sid of sids) {
      const moved = api.addSidToBoundaryDescriptor(descriptor, sid);
      if (moved === null) {
        throw new IpcBlockError('missing', `Cannot add a SID to the boundary descriptor ${boundary} for process ${pid} (${win32ErrorText(api.lastError())}).`);
      }
      descriptor = moved;
    }
    namespace = api.openPrivateNamespace(descriptor, READER_NAMESPACE_PREFIX);
    if (namespace === null) {
      const code = api.lastError();
      if (notFound(code)) {
        throw new IpcBlockError('missing', `Process ${pid} has no .NET Framework 4 counters: no runtime in it created the private namespace ${boundary} (${win32ErrorText(code)}).`);
      }
      if (code === ERROR_ACCESS_DENIED) {
        throw new IpcBlockError('missing', `This user may not open process ${pid}'s .NET Framework counters (${win32ErrorText(code)}): ${WHO_MAY_READ}.`);
      }
      throw new IpcBlockError('missing', `Cannot open the private namespace ${boundary} of process ${pid} (${win32ErrorText(code)}).`);
    }
    const name = blockTableName(READER_NAMESPACE_PREFIX);
    const mapping = api.openFileMapping(FILE_MAP_READ, name);
    if (mapping === null) {
      const code = api.lastError();
      if (notFound(code)) {
        throw new IpcBlockError('missing', `Process ${pid} has the .NET Framework's private namespace but no ${BLOCK_TABLE_OBJECT_NAME} in it (${win32ErrorText(code)}).`);
      }
      if (code === ERROR_ACCESS_DENIED) {
        throw new IpcBlockError('missing', `This user may not read process ${pid}'s .NET Framework block table (${win32ErrorText(code)}): ${WHO_MAY_READ}.`);
      }
      throw new IpcBlockError('missing', `Cannot open process ${pid}'s .NET Framework block table ${name} (${win32ErrorText(code)}).`);
    }
    return mapTable(api, mapping, name, pid);
  } finally {
    // As the runtime's reader does: the mapping outlives the namespace handle and the descriptor.
    if (namespace !== null) api.closePrivateNamespace(namespace, CLOSE_NAMESPACE_KEEP);
    api.deleteBoundaryDescriptor(descriptor);
  }
}

/**
 * Maps the whole 64 KiB block table of .NET Framework 4.x process `pid`, read-only: this
 * process's own through Cor_CLR_WRITER, another's through the private namespace. IpcBlockError
 * `missing` (one sentence naming the step and the Windows error) when it cannot.
 */
export function openFrameworkTable(api: FrameworkIpcApi, pid: number): MappedBlock {
  return pid === api.currentPid ? openOwnTable(api) : openOtherTable(api, pid);
}

export interface FrameworkBlock {
  /** The chosen 2 KiB block, read live through the table's accessor; close() unmaps the whole table. */
  readonly block: MappedBlock;
  readonly choice: BlockChoice;
}

/**
 * Maps the block table of process `pid` and picks the block to read (chooseBlock, with `pid` as
 * the expected process id unless the options say otherwise). On any failure the table is unmapped
 * again and the IpcBlockError says why in one sentence.
 */
export function openFrameworkBlock(api: FrameworkIpcApi, pid: number, options: BlockChoiceOptions = {}): FrameworkBlock {
  const table = openFrameworkTable(api, pid);
  let choice: BlockChoice;
  try {
    // On the live table: each block is copied under its own sequence counter.
    choice = chooseBlock(table, { pid, ...options });
  } catch (e) {
    table.close();
    if (e instanceof IpcBlockError) {
      throw new IpcBlockError(e.kind, `In process ${pid}'s .NET Framework block table, ${clause(e.message)}`);
    }
    throw e;
  }
  return {
    choice,
    block: blockInside(table, choice.index * IPC_BLOCK_SIZE, IPC_BLOCK_SIZE, `${table.source}, block ${choice.index} (runtime 0x${choice.runtimeId.toString(16)})`),
  };
}

