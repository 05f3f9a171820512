// The renderer's only door to the main process under Electron: one named function per operation
// of the API contract, the shell's own chooseRecordingFile (the native open dialog) and copyToClipboard, plus
// onEvent. Never ipcRenderer itself. Runs sandboxed, so it is bundled to CommonJS
// (dist/electron/preload.cjs) with the contract's constants inlined.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  IPC_CHANNEL_PREFIX, IPC_EVENT_CHANNEL, PRELOAD_GLOBAL, type AttachRequest, type ClipboardRequest, type CountersPoint, type ExportRequest, type ExportResult,
  type LaunchRequest, type OpenRecordingRequest, type Operation, type OutputHistory, type ProcessInfo, type SessionInfo, type ShellOperation,
  type WorkstationApi, type WorkstationEvent, type WorkstationSettings, type MeasureReply, type MeasureRequest, type RevertMeasureRequest, type KeepWindowRequest, type SourceLineTable,
  type SourceFile, type SourceFileRequest, type HeapDominatorChildren, type HeapDominatorsRequest, type HeapOpenRequest, type HeapPathRow,
  type HeapPathsRequest, type HeapSaveRequest, type HeapSnapshotInfo, type HeapTakeRequest, type HeapTypeRow, type HeapTypesRequest,
} from '../structs/api/contract.js';
import { isIpcReply } from './ipc-reply.js';

async function call(op: Operation | ShellOperation, ...args: unknown[]): Promise<unknown> {
  const reply: unknown = await ipcRenderer.invoke(`${IPC_CHANNEL_PREFIX}${op}`, ...args);
  if (!isIpcReply(reply)) throw new Error(`The workstation sent an unreadable answer to ${op}.`);
  if (!reply.ok) throw new Error(reply.error);
  return reply.result;
}

const api: WorkstationApi = {
  listProcesses: async () => (await call('listProcesses')) as ProcessInfo[],
  listSessions: async () => (await call('listSessions')) as SessionInfo[],
  launch: async (request: LaunchRequest) => (await call('launch', request)) as SessionInfo,
  launchDemo: async () => (await call('launchDemo')) as SessionInfo,
  attach: async (request: AttachRequest) => (await call('attach', request)) as SessionInfo,
  stop: async (sessionId: string) => (await call('stop', sessionId)) as SessionInfo,
  subscribe: async (sessionId: string, fromOffset?: number) => {
    await call('subscribe', sessionId, fromOffset);
  },
  unsubscribe: async (sessionId: string) => {
    await call('unsubscribe', sessionId);
  },
  closeSession: async (sessionId: string) => {
    await call('closeSession', sessionId);
  },
  exportRecording: async (request: ExportRequest) => (await call('exportRecording', request)) as ExportResult,
  openRecording: async (request: OpenRecordingRequest) => (await call('openRecording', request)) as SessionInfo,
  cancelJob: async (jobId: string) => { await call('cancelJob', jobId); },
  countersHistory: async (sessionId: string) => (await call('countersHistory', sessionId)) as CountersPoint[],
  outputHistory: async (sessionId: string) => (await call('outputHistory', sessionId)) as OutputHistory,
  loadSettings: async () => (await call('loadSettings')) as WorkstationSettings,
  saveSettings: async (settings: WorkstationSettings) => {
    await call('saveSettings', settings);
  },
  measure: async (request: MeasureRequest) => (await call('measure', request)) as MeasureReply,
  revertMeasure: async (request: RevertMeasureRequest) => (await call('revertMeasure', request)) as MeasureReply,
  setKeepWindow: async (request: KeepWindowRequest) => (await call('setKeepWindow', request)) as SessionInfo,
  sourceLines: async (sessionId: string) => (await call('sourceLines', sessionId)) as SourceLineTable,
  sourceFile: async (request: SourceFileRequest) => (await call('sourceFile', request)) as SourceFile,
  takeHeapSnapshot: async (request: HeapTakeRequest) => (await call('takeHeapSnapshot', request)) as HeapSnapshotInfo,
  openHeapSnapshot: async (request: HeapOpenRequest) => (await call('openHeapSnapshot', request)) as HeapSnapshotInfo,
  listHeapSnapshots: async () => (await call('listHeapSnapshots')) as HeapSnapshotInfo[],
  saveHeapSnapshot: async (request: HeapSaveRequest) => {
    await call('saveHeapSnapshot', request);
  },
  closeHeapSnapshot: async (snapshotId: string) => {
    await call('closeHeapSnapshot', snapshotId);
  },
  heapTypes: async (request: HeapTypesRequest) => (await call('heapTypes', request)) as HeapTypeRow[],
  heapPaths: async (request: HeapPathsRequest) => (await call('heapPaths', request)) as HeapPathRow[],
  heapDominators: async (request: HeapDominatorsRequest) => (await call('heapDominators', request)) as HeapDominatorChildren,
  chooseRecordingFile: async () => (await call('chooseRecordingFile')) as string | null,
  copyToClipboard: async (request: ClipboardRequest) => {
    await call('copyToClipboard', request);
  },
  onEvent(listener: (event: WorkstationEvent) => void) {
    const handler = (_event: IpcRendererEvent, event: WorkstationEvent): void => listener(event);
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
    };
  },
};

contextBridge.exposeInMainWorld(PRELOAD_GLOBAL, api);
