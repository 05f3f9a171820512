// The one API between the renderer and the main process. The renderer only ever sees this
// contract; Electron's preload and browser mode's WebSocket are two thin adapters of it, and
// the main process validates every argument it receives (electron/services/api/validate.ts).
//
// Profiles travel as the profiler's own wire stream (structs/wire/PROTOCOL.md): the main
// process forwards a session's bytes in order and the renderer's worker decodes them with the
// same decoder the collector uses. Counters travel as points read from the counters block:
// live ones as events, the ones before a page looked through countersHistory. A recording file
// opened with openRecording is a session like the others, its stream the recording re-encoded.
// A launched program's own output travels as numbered lines: live ones as events, the ones
// before a page looked through outputHistory.

import type { FoldOptions } from '../analysis/fold-options.js';
import { EXPORT_FORMATS, FORMAT_CATALOG, formatAbout, type ExportFormat } from '../formats/catalog.js';
import type {
  HeapDominatorChildren, HeapDominatorsRequest, HeapOpenRequest, HeapPathRow, HeapPathsRequest, HeapSaveRequest, HeapSnapshotInfo, HeapTakeRequest,
  HeapTypeRow, HeapTypesRequest,
} from './heap-contract.js';

export * from './heap-contract.js';

/** A local .NET process, as `clrscope ps` lists it. */
export interface ProcessInfo {
  pid: number;
  /** The entrypoint assembly's name when the runtime told it, else the .dll a dotnet host runs, else the kernel's process name. */
  name: string;
  /** What the runtime reports (host path and arguments), else /proc/PID/cmdline joined by spaces. */
  commandLine: string;
  /** The CLR product version ("10.0.12") from ProcessInfo2, else the shared-framework folder of libcoreclr.so, else null. */
  runtimeVersion: string | null;
  /** clrscope can record it: with its profiler, or through EventPipe when `eventPipeOnly`. */
  attachable: boolean;
  /**
   * The runtime would refuse clrscope's profiler (it takes one, and already has one) but answers
   * on its diagnostics socket, so a recording goes through an EventPipe session instead, with
   * approximate CPU time. `reason` says why.
   */
  eventPipeOnly: boolean;
  /** Why it is not attachable, or why only through EventPipe (one clause); null when the profiler can attach. */
  reason: string | null;
  /** clrscope's profiler is loaded (it publishes /dev/shm/clrscope-PID while loaded). */
  clrscopeLoaded: boolean;
  /** Set when the process runs in other pid or mount namespaces than clrscope (a container); `pid` is then the pid clrscope sees. */
  container: ContainerInfo | null;
}

/** Which container a process runs in, and its pid there. */
export interface ContainerInfo {
  /** The pid the process has in its own pid namespace (what tools inside the container show). */
  pid: number;
  /** The container runtime's id (12 digits) when its cgroup names one, else "mnt:INODE" (the mount namespace). */
  id: string;
  /** Its cgroup path, when readable. */
  cgroup: string | null;
}

/**
 * Where async call stacks come from (native-profiler/ASYNC-STACKS-STUDY.md): 'events' follows the
 * runtime's TPL events of every await (suspended time and the "Async operations" count too);
 * 'heap' reads each sample's chain from the heap as it is taken (cheaper; no suspended time).
 */
export type AsyncStacksSource = 'events' | 'heap';
export const ASYNC_STACKS_SOURCES: readonly AsyncStacksSource[] = ['events', 'heap'];

/** What a launch and an attach record, alike. */
export interface RecordingChoices {
  /** Sampling period, 1..1000 ms (default 10). */
  intervalMs?: number;
  /** Wall-time samples too (default true). */
  wall?: boolean;
  /**
   * Async call stacks (default false: costs the program time at high await rates; README, "Async
   * stacks"). After an attach, only operations started since get their chain from events.
   */
  async?: boolean;
  /**
   * Where they come from when `async` is on (default 'events'): ASYNC_STACKS_SOURCES. With 'heap'
   * an attached profiler cannot detach (its library stays loaded, quiet).
   */
  asyncSource?: AsyncStacksSource;
  /** Event samples with stacks (README, "Allocations, locks and exceptions"): exceptions and lock waits (default true), allocations (default false: the Types view's data). */
  exceptions?: boolean;
  locks?: boolean;
  alloc?: boolean;
  /** Keep only the last N minutes in the views (SessionInfo.keepMinutes); absent: the whole recording. */
  keepMinutes?: number;
}

export interface LaunchRequest extends RecordingChoices {
  /** The program to run (looked up on PATH), e.g. "dotnet". */
  command: string;
  args: string[];
  /** Working directory; the workstation's own when absent. */
  cwd?: string;
  /**
   * Record every .NET process the program starts too, each as its own process in the one
   * recording (`record --children`). Default false here; the Launch form sends true unless unticked.
   */
  children?: boolean;
}

export interface AttachRequest extends RecordingChoices {
  pid: number;
  /**
   * Async call stacks from the runtime's events when the process awaits little: fewer than
   * ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC thread-pool work items completed a second, over one second
   * measured before the attach; off otherwise. The session's message says which and why. Not
   * said together with `async`.
   */
  asyncAuto?: boolean;
}

/** Attach's "auto" async call stacks stay off at this many thread-pool work items a second and above (about ×1.016 of CPU at the feature's measured cost per await). */
export const ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC = 2000;

/** The longest window a session's views may keep (a day). */
export const MAX_KEEP_MINUTES = 1440;

export interface KeepWindowRequest {
  sessionId: string;
  /** 1..MAX_KEEP_MINUTES, or null for the whole recording. */
  keepMinutes: number | null;
}

export type SessionState = 'starting' | 'recording' | 'stopped' | 'failed';

/** Where a session's recording comes from: a program clrscope launched, a process it attached to, or a recording file it opened. */
export type SessionSource = 'launch' | 'attach' | 'file';

export interface SessionInfo {
  id: string;
  /** The profiled process, once known. */
  pid: number | null;
  /** What the user sees: the command line or the process name. */
  label: string;
  state: SessionState;
  /** Unix epoch ms when the session began. */
  startedAtMs: number;
  /** The sampling interval; 0 when a recording file did not say. */
  intervalMs: number;
  /** Same as `source === 'attach'`. */
  attached: boolean;
  source: SessionSource;
  /**
   * The CPU times are estimates rather than measured per sample (e.g. counted from samples that
   * were in managed code, as a nettrace from dotnet-trace allows), whatever the session's source.
   */
  approximateCpu: boolean;
  /** The program's exit code once it exited (launched sessions). */
  exitCode: number | null;
  /** A sentence for the user: why it failed, or what happened at the end. */
  message: string | null;
  /**
   * The views keep only the last N minutes of the recording (each page's worker lets older data
   * go, so its memory stays bounded on a long session); absent: the whole recording. The
   * session's stream keeps everything: saves and exports write the whole recording.
   */
  keepMinutes?: number;
}

export type { ExportFormat };

/** Every export format and the extension of the file it writes, in the order the UI offers them (from the format catalog). */
export const EXPORT_EXTENSIONS: Readonly<Record<ExportFormat, string>> = Object.fromEntries(
  EXPORT_FORMATS.map((id) => [id, formatAbout(id).write[0]]),
) as Record<ExportFormat, string>;

export interface ExportRequest {
  sessionId: string;
  format: ExportFormat;
  /** Absolute path to write; the workstation picks one in its exports folder when absent. */
  path?: string;
  /** Folding and grouping to apply to the stacks written; absent = the stacks as recorded. */
  fold?: FoldOptions;
  /** A name for this export that cancelJob takes (JOB_ID: letters, digits, - and _). */
  jobId?: string;
}

/** The names pages give the jobs they may cancel (cancelJob). */
export const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What the workstation remembers between runs (a settings file in the user's config folder). */
export interface WorkstationSettings {
  /** The folding and grouping every view applies. */
  fold: FoldOptions;
}

export interface ExportResult {
  path: string;
  bytes: number;
}

/**
 * The names of the recording files openRecording takes (lower case), from the format catalog:
 * every extension a reader claims, bar a bare .json, which names too much besides speedscope. A
 * file named otherwise is taken when its content is one of them (the reader is picked by content).
 */
export const OPENABLE_EXTENSIONS: readonly string[] = FORMAT_CATALOG.flatMap((f) => f.read.filter((ext) => ext !== '.json'));

export interface OpenRecordingRequest {
  /** Absolute path of a recording file: one of OPENABLE_EXTENSIONS, or content a reader knows. */
  path: string;
  /** A name for this open that cancelJob takes (JOB_ID). */
  jobId?: string;
}

/**
 * The most counters points a page keeps per session (the newest), and so the most
 * countersHistory answers: older ones would cross the API only to be dropped on arrival.
 */
export const COUNTERS_HISTORY_POINTS = 3600;

/** One reading of a process's counters block: sections of camelCase counters, as `clrscope counters --format json` prints them. */
export interface CountersPoint {
  /** Unix epoch ms of the reading. */
  timeMs: number;
  values: Record<string, Record<string, number>>;
}

/** Which of a launched program's output streams a line came from. */
export type OutputStream = 'stdout' | 'stderr';

/** One line a launched program wrote, without its line break. */
export interface OutputLine {
  /**
   * Numbers the session's lines from 0, across both streams, in the order they were completed:
   * a page merges outputHistory with the lines heard live by it, and the first one it holds
   * says how many came before.
   */
  seq: number;
  stream: OutputStream;
  text: string;
}

/** Each stream's unfinished last line (a prompt, a line of progress dots); '' when it ended with a line break. */
export type OutputPartial = Record<OutputStream, string>;

/** What the workstation still holds of a session's output (sessions it did not launch have none). */
export interface OutputHistory {
  lines: OutputLine[];
  /** Lines dropped to stay within OUTPUT_LIMITS, the oldest first: `lines[0].seq` when there are lines. */
  droppedLines: number;
  partial: OutputPartial;
}

/**
 * How much of a launched program's output is kept per session, in the main process and in a
 * page alike: the newest `lines` lines within `bytes` bytes of UTF-8 text. A longer line is cut
 * into pieces of `lineChars` characters, so an unfinished line stays bounded too.
 */
export const OUTPUT_LIMITS = { lines: 2000, bytes: 256 * 1024, lineChars: 8192 } as const;

/** Measure methods of a live session exactly (structs/wire/PROTOCOL.md, "Measuring methods"). */
export interface MeasureRequest {
  sessionId: string;
  /** Namespace.Type.Method, Namespace.Type.*, or a frame name from the flame graph. */
  pattern: string;
}

export interface RevertMeasureRequest {
  sessionId: string;
  /** The method's measure id (MEASURE_METHOD), or 0 for every measured method. */
  measureId: number;
}

/** The profiler's answer to a measure or revert request. The figures themselves travel in the session's stream. */
export interface MeasureReply {
  ok: boolean;
  /** Methods the pattern matched in the modules loaded so far, or methods reverted. */
  matched: number;
  /** One sentence for the user. */
  message: string;
}

/**
 * Source lines of a session's frames (wire v2 frame ids), from the portable PDBs of its
 * modules (beside each assembly or embedded in it). Parallel lists: frame `frameIds[i]` is at
 * line `lines[i]` of `files[fileIndex[i]]`. Frames without a known line are left out; `notes`
 * says, one sentence per module, why its lines are unknown.
 */
export interface SourceLineTable {
  frameIds: number[];
  fileIndex: number[];
  lines: number[];
  files: string[];
  notes: string[];
}

/** The largest source file the source panel shows (the main process reads no more of it). */
export const MAX_SOURCE_FILE_BYTES = 2 * 1024 * 1024;
/** The most methods one sourceFile request may ask spans of. */
export const MAX_SOURCE_METHODS = 64;

export interface SourceFileRequest {
  sessionId: string;
  /** A file as the session's sourceLines named it (the PDB's document path). */
  path: string;
  /** Methods (module id, MethodDef token) whose line spans in that file the panel marks. */
  methods?: { moduleId: number; token: number }[];
}

/** A source file for the source panel, or one sentence saying why it is not shown. */
export interface SourceFile {
  path: string;
  /** The file's text; null when it is not shown (`message` says why). */
  text: string | null;
  message: string | null;
  /** The lines each asked method spans in this file (from its sequence points), where found. */
  spans: { firstLine: number; lastLine: number }[];
}

/** The most text copyToClipboard takes (the SVG of an hour of 10 threads, 5,000 distinct stacks, is 5 MB). */
export const MAX_CLIPBOARD_CHARS = 16 * 1024 * 1024;

export interface ClipboardRequest {
  /** At most MAX_CLIPBOARD_CHARS characters. */
  text: string;
  /** The text is an SVG document: offer it as image/svg+xml as well. */
  svg?: boolean;
}

/** The longest pattern measure takes. */
export const MAX_MEASURE_PATTERN = 1000;

export type WorkstationEvent =
  | { type: 'session'; session: SessionInfo }
  /** Wire-stream bytes of a session, in order; `offset` is the position of the chunk's first byte. */
  | { type: 'stream'; sessionId: string; offset: number; chunk: Uint8Array }
  | { type: 'counters'; sessionId: string; point: CountersPoint }
  | { type: 'export-progress'; sessionId: string; done: number; total: number }
  /** An export reading the session's recording back from its stream before writing (bytes of the stream). */
  | { type: 'export-reading'; sessionId: string; done: number; total: number }
  /** openRecording at work on `path`: reading the file (bytes), then preparing its stream (samples). */
  | { type: 'open-progress'; path: string; phase: 'reading' | 'preparing'; done: number; total: number }
  /** Output of a launched program: the lines it completed since the last event, and where each stream's unfinished line stands. */
  | { type: 'output'; sessionId: string; lines: OutputLine[]; partial: OutputPartial }
  /** closeSession freed a session: it is gone from every page's list. */
  | { type: 'session-closed'; sessionId: string }
  /** A heap snapshot being taken or read (`label` says of what): the walk, reading the file, or analysing the graph. */
  | { type: 'heap-progress'; label: string; phase: 'walking' | 'reading' | 'analysing'; done: number; total: number }
  /** A heap snapshot was added (taken or opened) or, with `closed`, let go. */
  | { type: 'heap-snapshot'; snapshot: HeapSnapshotInfo; closed?: boolean };

export type Unsubscribe = () => void;

/** What the renderer may ask of the main process. Every method is async and may reject with an Error whose message is one sentence for the user. */
export interface WorkstationApi {
  listProcesses(): Promise<ProcessInfo[]>;
  listSessions(): Promise<SessionInfo[]>;
  launch(request: LaunchRequest): Promise<SessionInfo>;
  /** Launches the bundled demo program (a small order service). */
  launchDemo(): Promise<SessionInfo>;
  attach(request: AttachRequest): Promise<SessionInfo>;
  stop(sessionId: string): Promise<SessionInfo>;
  /**
   * Asks for a session's stream from byte `fromOffset` (default 0: a renderer that reloads
   * starts over; one that reconnects resumes where it was), then its live bytes. Resolves once
   * the bytes stored so far were sent; a long recording is read from disk in steps the client
   * keeps up with. At most the stream's length.
   */
  subscribe(sessionId: string, fromOffset?: number): Promise<void>;
  /** Stops the stream events of a session this client no longer shows (a replay under way stops too). Unknown ids are ignored. */
  unsubscribe(sessionId: string): Promise<void>;
  /**
   * Forgets a stopped or failed session and frees what it holds in the workstation (its
   * stream's file, its recording): every page hears 'session-closed'. A session still
   * recording must be stopped first.
   */
  closeSession(sessionId: string): Promise<void>;
  exportRecording(request: ExportRequest): Promise<ExportResult>;
  /** Opens a recording file as a new session: stopped from the start, no pid, its stream the recording as a .clrscope stream. */
  openRecording(request: OpenRecordingRequest): Promise<SessionInfo>;
  /**
   * Stops the open or export started with this jobId: it rejects with a sentence saying it was
   * cancelled, having left things as they were (no session, no file). A job already over is no error.
   */
  cancelJob(jobId: string): Promise<void>;
  /**
   * The session's counters points so far (a live session's, or a file's): the newest
   * COUNTERS_HISTORY_POINTS of them, oldest first. 'counters' events bring only new points, so
   * a page that shows a session asks for this once and merges by time.
   */
  countersHistory(sessionId: string): Promise<CountersPoint[]>;
  /**
   * What the workstation still holds of a launched program's output (empty for other
   * sessions). 'output' events bring only new lines, so a page that shows a session asks for
   * this once and merges by `seq`.
   */
  outputHistory(sessionId: string): Promise<OutputHistory>;
  /** The settings saved by the last saveSettings, or the defaults. */
  loadSettings(): Promise<WorkstationSettings>;
  /** Saves the settings for the next run (and the other pages of this one). */
  saveSettings(settings: WorkstationSettings): Promise<void>;
  /**
   * Measures every method the pattern names in a live session's process (launched or
   * attached; not a file, not an EventPipe session). In an attached process the runtime then
   * keeps clrscope's profiler loaded until the process exits.
   */
  measure(request: MeasureRequest): Promise<MeasureReply>;
  /** Gives measured methods their original code back. */
  revertMeasure(request: RevertMeasureRequest): Promise<MeasureReply>;
  /**
   * Changes how much of a session the views keep (any session, live or not): every page hears
   * the session's new SessionInfo and feeds its worker again from the stream's start.
   */
  setKeepWindow(request: KeepWindowRequest): Promise<SessionInfo>;
  /** The session's frames' source lines known so far (a live session's grow: ask again). */
  sourceLines(sessionId: string): Promise<SourceLineTable>;
  /**
   * A source file of the session for the source panel: only one its frames' lines name (else
   * rejects), read by the main process (a regular file, no symbolic link, at most
   * MAX_SOURCE_FILE_BYTES, UTF-8); a file it cannot show is a reply with a sentence.
   */
  sourceFile(request: SourceFileRequest): Promise<SourceFile>;
  /**
   * The Electron shell's native open dialog: the chosen file's path, or null when cancelled.
   * Absent in browser mode (a page cannot see paths); the path then goes to openRecording,
   * which validates it like any other.
   */
  chooseRecordingFile?(): Promise<string | null>;
  /**
   * Puts text on the system clipboard, as plain text and, with `svg`, as image/svg+xml too.
   * Electron's shell only, whose page may not use navigator.clipboard (it grants the page no
   * permission); a page in a browser writes the clipboard itself.
   */
  copyToClipboard?(request: ClipboardRequest): Promise<void>;
  /**
   * Takes a heap snapshot of a live session's process (the runtime's heap walk: one blocking
   * gen-2 collection); the graph is read and analysed in a worker thread, with 'heap-progress'.
   */
  takeHeapSnapshot(request: HeapTakeRequest): Promise<HeapSnapshotInfo>;
  /** Reads a heap snapshot file (.gcdump, .clrheap, or the snapshots inside a .clrscope recording: the last one). */
  openHeapSnapshot(request: HeapOpenRequest): Promise<HeapSnapshotInfo>;
  listHeapSnapshots(): Promise<HeapSnapshotInfo[]>;
  /** Writes a snapshot as a .clrheap file. */
  saveHeapSnapshot(request: HeapSaveRequest): Promise<void>;
  closeHeapSnapshot(snapshotId: string): Promise<void>;
  /** Every type of a snapshot, the most retaining first; with a baseline, every type that changed, the most grown in count first. */
  heapTypes(request: HeapTypesRequest): Promise<HeapTypeRow[]>;
  /** The shortest paths from roots to a type's objects, grouped; with a baseline, the paths whose counts changed. */
  heapPaths(request: HeapPathsRequest): Promise<HeapPathRow[]>;
  /** The children of an object in the dominator tree. */
  heapDominators(request: HeapDominatorsRequest): Promise<HeapDominatorChildren>;
  onEvent(listener: (event: WorkstationEvent) => void): Unsubscribe;
  /**
   * Browser mode only: the connection to the workstation dropped and was made again. The new
   * connection has no subscriptions: the page asks again, from the offsets it holds.
   */
  onReconnected?(listener: () => void): Unsubscribe;
}

/** The operations by name: the channel names of Electron's IPC and the `op` of browser mode's requests. */
export const OPERATIONS = [
  'listProcesses', 'listSessions', 'launch', 'launchDemo', 'attach', 'stop', 'subscribe', 'unsubscribe', 'closeSession', 'exportRecording',
  'openRecording', 'countersHistory', 'outputHistory', 'loadSettings', 'saveSettings', 'measure', 'revertMeasure', 'sourceLines',
  'sourceFile', 'setKeepWindow', 'cancelJob', 'takeHeapSnapshot', 'openHeapSnapshot', 'listHeapSnapshots', 'saveHeapSnapshot', 'closeHeapSnapshot',
  'heapTypes', 'heapPaths', 'heapDominators',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Operations only the Electron shell offers (main.ts handles them on their own channels; browser mode has none). */
export const SHELL_OPERATIONS = ['chooseRecordingFile', 'copyToClipboard'] as const;
export type ShellOperation = (typeof SHELL_OPERATIONS)[number];

export const IPC_CHANNEL_PREFIX = 'clrscope:';
export const IPC_EVENT_CHANNEL = 'clrscope:event';

/** The global the Electron preload exposes (contextBridge) and the renderer's bridge looks for. */
export const PRELOAD_GLOBAL = 'clrscope';
