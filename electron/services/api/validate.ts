// Every argument the renderer sends is checked here before it reaches the workstation: the
// operation name against the contract's allowlist, then each argument's type, range and shape.
// A bad argument is a ValidationError whose message is one sentence for the user. Validated
// requests are fresh objects holding only the contract's fields.

import { statSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import {
  ASYNC_STACKS_SOURCES, EXPORT_EXTENSIONS, JOB_ID, MAX_CLIPBOARD_CHARS, MAX_HEAP_CHILDREN, MAX_HEAP_TYPE_CHARS, MAX_KEEP_MINUTES, MAX_MEASURE_PATTERN, MAX_SOURCE_METHODS, OPENABLE_EXTENSIONS, OPERATIONS, type AttachRequest, type ClipboardRequest, type ExportFormat, type ExportRequest, type KeepWindowRequest, type LaunchRequest,
  type MeasureRequest, type OpenRecordingRequest, type Operation, type RevertMeasureRequest, type SourceFileRequest, type WorkstationApi, type WorkstationSettings,
  type HeapDominatorsRequest, type HeapOpenRequest, type HeapPathsRequest, type HeapSaveRequest, type HeapTakeRequest, type HeapTypesRequest,
} from '../../../structs/api/contract.js';
import { checkFoldOptions, type FoldOptions } from '../../../structs/analysis/fold-options.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { exportPathMismatch } from '../workstation/export-recording.js';
import { contentFormatOf } from '../export/recording-file.js';

export class ValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValidationError';
  }
}

/** The arguments of each operation, as the contract declares them. */
export type OperationArgs<K extends Operation> = Parameters<WorkstationApi[K]>;

/** A call that passed validation: the operation and its checked arguments. */
export type ValidatedCall = { [K in Operation]: { op: K; args: OperationArgs<K> } }[Operation];

export interface ValidationContext {
  /** Whether a session with this id exists. */
  hasSession(id: string): boolean;
  /** Whether a heap snapshot with this id exists (a context without heap snapshots has none). */
  hasHeapSnapshot?(id: string): boolean;
}

/** Limits on what a launch may carry (Linux's ARG_MAX is 2 MiB in all; one argument at most 128 KiB). */
export const LIMITS = {
  commandChars: 4096,
  pathChars: 4096,
  argChars: 32768,
  argCount: 1000,
  argsTotalChars: 262144,
  sessionIdChars: 100,
  maxPid: 2 ** 31 - 1,
} as const;

const OPERATION_SET: ReadonlySet<string> = new Set(OPERATIONS);

export function isOperation(name: unknown): name is Operation {
  return typeof name === 'string' && OPERATION_SET.has(name);
}

/** A short, safe rendering of a value for an error sentence. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  const text = String(value);
  const printable = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return JSON.stringify(printable.length > 40 ? `${printable.slice(0, 40)}…` : printable);
}

function fail(message: string): never {
  throw new ValidationError(message);
}

function plainObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`The ${what} must be an object, not ${describeValue(value)}.`);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) fail(`The ${what} must be a plain object.`);
  return value as Record<string, unknown>;
}

function onlyFields(obj: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(`The ${what} has an unknown field ${describeValue(key)}.`);
  }
}

function text(value: unknown, name: string, maxChars: number, options: { empty?: boolean } = {}): string {
  if (typeof value !== 'string') fail(`${name} must be text, not ${describeValue(value)}.`);
  if (!options.empty && value.trim() === '') fail(`${name} must not be empty.`);
  if (value.length > maxChars) fail(`${name} is ${value.length} characters long; at most ${maxChars} are allowed.`);
  if (value.includes('\0')) fail(`${name} must not contain a NUL character.`);
  return value;
}

function absolutePath(value: unknown, name: string): string {
  const path = text(value, name, LIMITS.pathChars);
  if (!isAbsolute(path)) fail(`${name} must be an absolute path, not ${describeValue(path)}.`);
  return path;
}

function integerIn(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(`${name} must be a whole number from ${min} to ${max}, not ${describeValue(value)}.`);
  }
  return value;
}

function bool(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') fail(`${name} must be true or false, not ${describeValue(value)}.`);
  return value;
}

export function validatePid(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > LIMITS.maxPid) {
    fail(`The pid must be a positive whole number, not ${describeValue(value)}.`);
  }
  return value;
}

export function validateIntervalMs(value: unknown): number {
  return integerIn(value, 'The sampling interval (intervalMs)', 1, 1000);
}

/** Minutes of a session the views keep. */
export function validateKeepMinutes(value: unknown): number {
  return integerIn(value, 'The minutes the views keep (keepMinutes)', 1, MAX_KEEP_MINUTES);
}

export function validateSessionId(value: unknown, context: ValidationContext): string {
  const id = text(value, 'The session id', LIMITS.sessionIdChars);
  if (!context.hasSession(id)) fail(`There is no session ${describeValue(id)}.`);
  return id;
}

export function validateLaunchRequest(value: unknown): LaunchRequest {
  const obj = plainObject(value, 'launch request');
  onlyFields(obj, ['command', 'args', 'cwd', 'intervalMs', 'wall', 'async', 'asyncSource', 'exceptions', 'locks', 'alloc', 'keepMinutes', 'children'], 'launch request');
  const command = text(obj.command, 'The command', LIMITS.commandChars);
  if (!Array.isArray(obj.args)) fail(`The program's arguments (args) must be a list of text, not ${describeValue(obj.args)}.`);
  if (obj.args.length > LIMITS.argCount) fail(`The program has ${obj.args.length} arguments; at most ${LIMITS.argCount} are allowed.`);
  const args: string[] = [];
  let total = 0;
  for (let i = 0; i < obj.args.length; i++) {
    const arg = text(obj.args[i], `Argument ${i + 1} of the program`, LIMITS.argChars, { empty: true });
    total += arg.length;
    args.push(arg);
  }
  if (total > LIMITS.argsTotalChars) fail(`The program's arguments add up to ${total} characters; at most ${LIMITS.argsTotalChars} are allowed.`);
  const request: LaunchRequest = { command, args };
  if (obj.cwd !== undefined) request.cwd = absolutePath(obj.cwd, 'The working directory (cwd)');
  if (obj.intervalMs !== undefined) request.intervalMs = validateIntervalMs(obj.intervalMs);
  if (obj.wall !== undefined) request.wall = bool(obj.wall, 'The wall-time switch (wall)');
  Object.assign(request, asyncSwitches(obj), eventSwitches(obj));
  if (obj.keepMinutes !== undefined) request.keepMinutes = validateKeepMinutes(obj.keepMinutes);
  if (obj.children !== undefined) request.children = bool(obj.children, 'The child processes switch (children)');
  return request;
}

export function validateAttachRequest(value: unknown): AttachRequest {
  const obj = plainObject(value, 'attach request');
  onlyFields(obj, ['pid', 'intervalMs', 'wall', 'async', 'asyncSource', 'asyncAuto', 'exceptions', 'locks', 'alloc', 'keepMinutes'], 'attach request');
  const request: AttachRequest = { pid: validatePid(obj.pid) };
  if (obj.intervalMs !== undefined) request.intervalMs = validateIntervalMs(obj.intervalMs);
  if (obj.wall !== undefined) request.wall = bool(obj.wall, 'The wall-time switch (wall)');
  Object.assign(request, asyncSwitches(obj), eventSwitches(obj));
  if (obj.asyncAuto !== undefined) {
    request.asyncAuto = bool(obj.asyncAuto, 'The automatic async call stacks switch (asyncAuto)');
    if (request.asyncAuto && request.async !== undefined) fail('Async call stacks are either chosen (async) or left to the process\'s await rate (asyncAuto), not both.');
  }
  if (obj.keepMinutes !== undefined) request.keepMinutes = validateKeepMinutes(obj.keepMinutes);
  return request;
}

/** The async call stacks switch and where they come from; a source without the switch on says nothing, so it is refused. */
function asyncSwitches(obj: Record<string, unknown>): Pick<LaunchRequest, 'async' | 'asyncSource'> {
  const out: Pick<LaunchRequest, 'async' | 'asyncSource'> = {};
  if (obj.async !== undefined) out.async = bool(obj.async, 'The async call stacks switch (async)');
  if (obj.asyncSource !== undefined) {
    const source = ASYNC_STACKS_SOURCES.find((s) => s === obj.asyncSource);
    if (source === undefined) fail(`Async call stacks come from ${ASYNC_STACKS_SOURCES.map((s) => `'${s}'`).join(' or ')}, not ${describeValue(obj.asyncSource)}.`);
    if (out.async !== true) fail('Where async call stacks come from (asyncSource) is said only with async: true.');
    out.asyncSource = source;
  }
  return out;
}

/** The exceptions, locks and allocations switches of a launch or attach request, those it has. */
function eventSwitches(obj: Record<string, unknown>): Pick<LaunchRequest, 'exceptions' | 'locks' | 'alloc'> {
  const out: Pick<LaunchRequest, 'exceptions' | 'locks' | 'alloc'> = {};
  if (obj.exceptions !== undefined) out.exceptions = bool(obj.exceptions, 'The exceptions switch (exceptions)');
  if (obj.locks !== undefined) out.locks = bool(obj.locks, 'The lock waits switch (locks)');
  if (obj.alloc !== undefined) out.alloc = bool(obj.alloc, 'The allocations switch (alloc)');
  return out;
}

export function validateKeepWindowRequest(value: unknown, context: ValidationContext): KeepWindowRequest {
  const obj = plainObject(value, 'kept window request');
  onlyFields(obj, ['sessionId', 'keepMinutes'], 'kept window request');
  const sessionId = validateSessionId(obj.sessionId, context);
  return { sessionId, keepMinutes: obj.keepMinutes === null ? null : validateKeepMinutes(obj.keepMinutes) };
}

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(EXPORT_EXTENSIONS, value);
}

export function validateExportRequest(value: unknown, context: ValidationContext): ExportRequest {
  const obj = plainObject(value, 'export request');
  onlyFields(obj, ['sessionId', 'format', 'path', 'fold', 'jobId'], 'export request');
  const sessionId = validateSessionId(obj.sessionId, context);
  if (!isExportFormat(obj.format)) {
    fail(`The export format must be one of ${Object.keys(EXPORT_EXTENSIONS).join(', ')}, not ${describeValue(obj.format)}.`);
  }
  const request: ExportRequest = { sessionId, format: obj.format };
  if (obj.path !== undefined) {
    request.path = absolutePath(obj.path, 'The export path');
    const mismatch = exportPathMismatch(obj.format, request.path);
    if (mismatch !== undefined) fail(mismatch);
  }
  if (obj.fold !== undefined) request.fold = validateFold(obj.fold);
  if (obj.jobId !== undefined) request.jobId = validateJobId(obj.jobId);
  return request;
}

/** A job's name as a page gave it (JOB_ID). */
export function validateJobId(value: unknown): string {
  if (typeof value !== 'string' || !JOB_ID.test(value)) fail(`A job id must be 1 to 64 letters, digits, - or _, not ${describeValue(value)}.`);
  return value;
}

function validateFold(value: unknown): FoldOptions {
  const checked = checkFoldOptions(value);
  if (typeof checked === 'string') fail(checked);
  return checked;
}

export function validateSettings(value: unknown): WorkstationSettings {
  const obj = plainObject(value, 'settings');
  onlyFields(obj, ['fold'], 'settings');
  return { fold: validateFold(obj.fold) };
}

/** "a.clrscope, … or b.speedscope.json": the extensions openRecording knows by name, for sentences. */
function openableList(): string {
  return `${OPENABLE_EXTENSIONS.slice(0, -1).join(', ')} or ${OPENABLE_EXTENSIONS[OPENABLE_EXTENSIONS.length - 1]}`;
}

/**
 * An absolute path to an existing file that is a recording a reader knows: by its content first
 * (as every reader is picked), else by a name ending in one of OPENABLE_EXTENSIONS. The file is
 * looked at here so the user hears about a typo at once; reading it may still fail (it changed,
 * or it is not what its name says), and that too is one sentence.
 */
export function validateOpenRequest(value: unknown): OpenRecordingRequest {
  const obj = plainObject(value, 'open request');
  onlyFields(obj, ['path', 'jobId'], 'open request');
  const jobId = obj.jobId === undefined ? undefined : validateJobId(obj.jobId);
  const path = absolutePath(obj.path, 'The recording path');
  let kind: 'file' | 'folder' | 'other';
  try {
    const s = statSync(path);
    kind = s.isFile() ? 'file' : s.isDirectory() ? 'folder' : 'other';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') fail(`There is no file at ${path}.`);
    fail(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
  if (kind === 'folder') fail(`The recording path ${path} is a folder, not a file.`);
  if (kind === 'other') fail(`The recording path ${path} is not a regular file.`);
  if (!openable(path)) {
    // The file's name, not the whole path: long values are cut short.
    fail(`The file ${describeValue(basename(path))} is not a recording clrscope reads: its content is none of the formats it knows and its name does not end in ${openableList()}.`);
  }
  return jobId === undefined ? { path } : { path, jobId };
}

/** Whether a reader takes the file: by its content first, else by a name OPENABLE_EXTENSIONS ends (a bare .json names too much). */
function openable(path: string): boolean {
  if (contentFormatOf(path) !== undefined) return true;
  const name = basename(path).toLowerCase();
  return OPENABLE_EXTENSIONS.some((ext) => name.endsWith(ext) && name.length > ext.length);
}

export function validateMeasureRequest(value: unknown, context: ValidationContext): MeasureRequest {
  const obj = plainObject(value, 'measure request');
  onlyFields(obj, ['sessionId', 'pattern'], 'measure request');
  const sessionId = validateSessionId(obj.sessionId, context);
  if (typeof obj.pattern !== 'string' || obj.pattern.trim() === '') fail(`The method pattern must be a non-empty string, not ${describeValue(obj.pattern)}.`);
  if (obj.pattern.length > MAX_MEASURE_PATTERN) fail(`The method pattern must be at most ${MAX_MEASURE_PATTERN} characters long, not ${obj.pattern.length}.`);
  return { sessionId, pattern: obj.pattern };
}

export function validateRevertMeasureRequest(value: unknown, context: ValidationContext): RevertMeasureRequest {
  const obj = plainObject(value, 'revert request');
  onlyFields(obj, ['sessionId', 'measureId'], 'revert request');
  const sessionId = validateSessionId(obj.sessionId, context);
  const id = obj.measureId;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 0xffffffff) fail(`The measure id must be a whole number from 0 to 4294967295, not ${describeValue(id)}.`);
  return { sessionId, measureId: id };
}

/**
 * A source file request: the path is checked here for its shape only; that the session's PDBs
 * name it is checked by the workstation, which holds the session's lines.
 */
export function validateSourceFileRequest(value: unknown, context: ValidationContext): SourceFileRequest {
  const obj = plainObject(value, 'source file request');
  onlyFields(obj, ['sessionId', 'path', 'methods'], 'source file request');
  const sessionId = validateSessionId(obj.sessionId, context);
  const path = text(obj.path, 'The source file path', LIMITS.pathChars);
  const request: SourceFileRequest = { sessionId, path };
  if (obj.methods !== undefined) {
    if (!Array.isArray(obj.methods)) fail(`The methods of a source file request must be a list, not ${describeValue(obj.methods)}.`);
    if (obj.methods.length > MAX_SOURCE_METHODS) fail(`A source file request names ${obj.methods.length} methods; at most ${MAX_SOURCE_METHODS} are allowed.`);
    request.methods = obj.methods.map((m: unknown, i) => {
      const ref = plainObject(m, `method ${i + 1} of the source file request`);
      onlyFields(ref, ['moduleId', 'token'], `method ${i + 1} of the source file request`);
      return { moduleId: integerIn(ref.moduleId, 'A method\'s module id', 0, 0xffffffff), token: integerIn(ref.token, 'A method\'s token', 0x06000001, 0x06ffffff) };
    });
  }
  return request;
}

/** The Electron shell's copyToClipboard: text within MAX_CLIPBOARD_CHARS, an SVG only when it is one. */
export function validateClipboardRequest(value: unknown): ClipboardRequest {
  const obj = plainObject(value, 'clipboard request');
  onlyFields(obj, ['text', 'svg'], 'clipboard request');
  const request: ClipboardRequest = { text: text(obj.text, 'The copied text', MAX_CLIPBOARD_CHARS) };
  if (obj.svg !== undefined && bool(obj.svg, 'The svg switch')) {
    if (!/^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(request.text)) fail('The copied text is not an SVG document.');
    request.svg = true;
  }
  return request;
}

export function validateHeapSnapshotId(value: unknown, context: ValidationContext): string {
  const id = text(value, 'The heap snapshot id', LIMITS.sessionIdChars);
  if (context.hasHeapSnapshot?.(id) !== true) fail(`There is no heap snapshot ${describeValue(id)}.`);
  return id;
}

export function validateHeapTakeRequest(value: unknown, context: ValidationContext): HeapTakeRequest {
  const obj = plainObject(value, 'heap snapshot request');
  onlyFields(obj, ['sessionId', 'jobId'], 'heap snapshot request');
  const request: HeapTakeRequest = { sessionId: validateSessionId(obj.sessionId, context) };
  if (obj.jobId !== undefined) request.jobId = validateJobId(obj.jobId);
  return request;
}

/** An existing regular file; which heap format it is, the worker that reads it says (by content first, as the CLI). */
export function validateHeapOpenRequest(value: unknown): HeapOpenRequest {
  const obj = plainObject(value, 'heap file request');
  onlyFields(obj, ['path'], 'heap file request');
  const path = absolutePath(obj.path, 'The heap snapshot path');
  let regular: boolean;
  try {
    regular = statSync(path).isFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') fail(`There is no file at ${path}.`);
    fail(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
  if (!regular) fail(`The heap snapshot path ${path} is not a regular file.`);
  return { path };
}

export function validateHeapSaveRequest(value: unknown, context: ValidationContext): HeapSaveRequest {
  const obj = plainObject(value, 'heap save request');
  onlyFields(obj, ['snapshotId', 'path'], 'heap save request');
  const snapshotId = validateHeapSnapshotId(obj.snapshotId, context);
  const path = absolutePath(obj.path, 'The heap snapshot path');
  if (!path.toLowerCase().endsWith('.clrheap')) fail(`A heap snapshot is saved as a .clrheap file, not ${describeValue(basename(path))}.`);
  return { snapshotId, path };
}

function heapBaseline(obj: Record<string, unknown>, snapshotId: string, context: ValidationContext): { baselineId?: string } {
  if (obj.baselineId === undefined) return {};
  const baselineId = validateHeapSnapshotId(obj.baselineId, context);
  if (baselineId === snapshotId) fail('A heap snapshot is compared with another snapshot, not with itself.');
  return { baselineId };
}

export function validateHeapTypesRequest(value: unknown, context: ValidationContext): HeapTypesRequest {
  const obj = plainObject(value, 'heap types request');
  onlyFields(obj, ['snapshotId', 'baselineId'], 'heap types request');
  const snapshotId = validateHeapSnapshotId(obj.snapshotId, context);
  return { snapshotId, ...heapBaseline(obj, snapshotId, context) };
}

export function validateHeapPathsRequest(value: unknown, context: ValidationContext): HeapPathsRequest {
  const obj = plainObject(value, 'heap paths request');
  onlyFields(obj, ['snapshotId', 'type', 'baselineId'], 'heap paths request');
  const snapshotId = validateHeapSnapshotId(obj.snapshotId, context);
  const type = text(obj.type, 'The type name', MAX_HEAP_TYPE_CHARS);
  return { snapshotId, type, ...heapBaseline(obj, snapshotId, context) };
}

export function validateHeapDominatorsRequest(value: unknown, context: ValidationContext): HeapDominatorsRequest {
  const obj = plainObject(value, 'dominator tree request');
  onlyFields(obj, ['snapshotId', 'node', 'limit'], 'dominator tree request');
  const snapshotId = validateHeapSnapshotId(obj.snapshotId, context);
  return { snapshotId, node: integerIn(obj.node, 'The object (node)', -1, 2 ** 31 - 2), limit: integerIn(obj.limit, 'The most children (limit)', 1, MAX_HEAP_CHILDREN) };
}

const ARITY: Record<Operation, number> = {
  listProcesses: 0, listSessions: 0, launch: 1, launchDemo: 0, attach: 1, stop: 1, subscribe: 1, unsubscribe: 1, closeSession: 1, exportRecording: 1,
  openRecording: 1, countersHistory: 1, outputHistory: 1, loadSettings: 0, saveSettings: 1, measure: 1, revertMeasure: 1, sourceLines: 1,
  sourceFile: 1, setKeepWindow: 1, cancelJob: 1, takeHeapSnapshot: 1, openHeapSnapshot: 1, listHeapSnapshots: 0, saveHeapSnapshot: 1, closeHeapSnapshot: 1,
  heapTypes: 1, heapPaths: 1, heapDominators: 1,
};
/** Arguments an operation may take beyond ARITY's. */
const OPTIONAL_ARGS: Partial<Record<Operation, number>> = { subscribe: 1 };

/** A stream offset to resume from: a whole number of bytes (the workstation checks it against the stream's length). */
export function validateStreamOffset(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return integerIn(value, 'The stream offset (fromOffset)', 0, Number.MAX_SAFE_INTEGER);
}

/** A session id to stop hearing: the session may already be gone (closed by another page), which is no error. */
function validateAnySessionId(value: unknown): string {
  return text(value, 'The session id', LIMITS.sessionIdChars);
}

/** Checks an operation name and its arguments as they came from the renderer. */
export function validateCall(op: unknown, args: unknown, context: ValidationContext): ValidatedCall {
  if (!isOperation(op)) fail(`Unknown operation ${describeValue(op)}.`);
  if (!Array.isArray(args)) fail(`The arguments of ${op} must be a list, not ${describeValue(args)}.`);
  const arity = ARITY[op];
  const optional = OPTIONAL_ARGS[op] ?? 0;
  // Trailing undefined (an omitted optional argument over IPC) does not count.
  let given = args.length;
  while (given > 0 && args[given - 1] === undefined) given--;
  if (given < arity || given > arity + optional) {
    const takes = arity === 0 ? 'no arguments' : arity === 1 ? 'one argument' : `${arity} arguments`;
    fail(`The operation ${op} takes ${takes}${optional > 0 ? ` (and ${optional} optional)` : ''}, not ${given}.`);
  }
  switch (op) {
    case 'listProcesses':
    case 'listSessions':
    case 'launchDemo':
      return { op, args: [] };
    case 'launch':
      return { op, args: [validateLaunchRequest(args[0])] };
    case 'attach':
      return { op, args: [validateAttachRequest(args[0])] };
    case 'stop':
      return { op, args: [validateSessionId(args[0], context)] };
    case 'subscribe': {
      const id = validateSessionId(args[0], context);
      const from = validateStreamOffset(args[1]);
      return { op, args: from === undefined ? [id] : [id, from] };
    }
    case 'unsubscribe':
      return { op, args: [validateAnySessionId(args[0])] };
    case 'closeSession':
      return { op, args: [validateSessionId(args[0], context)] };
    case 'exportRecording':
      return { op, args: [validateExportRequest(args[0], context)] };
    case 'openRecording':
      return { op, args: [validateOpenRequest(args[0])] };
    case 'countersHistory':
      return { op, args: [validateSessionId(args[0], context)] };
    case 'outputHistory':
      return { op, args: [validateSessionId(args[0], context)] };
    case 'loadSettings':
      return { op, args: [] };
    case 'saveSettings':
      return { op, args: [validateSettings(args[0])] };
    case 'measure':
      return { op, args: [validateMeasureRequest(args[0], context)] };
    case 'revertMeasure':
      return { op, args: [validateRevertMeasureRequest(args[0], context)] };
    case 'sourceLines':
      return { op, args: [validateSessionId(args[0], context)] };
    case 'sourceFile':
      return { op, args: [validateSourceFileRequest(args[0], context)] };
    case 'setKeepWindow':
      return { op, args: [validateKeepWindowRequest(args[0], context)] };
    case 'cancelJob':
      return { op, args: [validateJobId(args[0])] };
    case 'takeHeapSnapshot':
      return { op, args: [validateHeapTakeRequest(args[0], context)] };
    case 'openHeapSnapshot':
      return { op, args: [validateHeapOpenRequest(args[0])] };
    case 'listHeapSnapshots':
      return { op, args: [] };
    case 'saveHeapSnapshot':
      return { op, args: [validateHeapSaveRequest(args[0], context)] };
    case 'closeHeapSnapshot':
      return { op, args: [validateHeapSnapshotId(args[0], context)] };
    case 'heapTypes':
      return { op, args: [validateHeapTypesRequest(args[0], context)] };
    case 'heapPaths':
      return { op, args: [validateHeapPathsRequest(args[0], context)] };
    case 'heapDominators':
      return { op, args: [validateHeapDominatorsRequest(args[0], context)] };
  }
}
