// What a Recording holds, in one place: the Recording reads it (its queries and its own changes
// such as dropBefore), the RecordingSink writes it from wire records. Neither owns the other's
// rules: the store only keeps the data and the bookkeeping both sides need (threads by id, the
// samples' keep mode), so the sink's per-sample path reaches the columns in one load.

import type { EndRecord, StatsRecord } from '../wire/records.js';
import { FunctionKind } from '../wire/records.js';
import { AsyncChains } from './async-chains.js';
import { EventColumns } from './event-columns.js';
import { PerSampleMarks } from './per-sample-marks.js';
import type { FunctionInfo } from './frame-label.js';
import { SampleColumns } from './sample-columns.js';
import type { StackTable } from './stack-table.js';
import { TimelineColumns } from './timeline-columns.js';
import {
  INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK_NAME,
  type FrameInfo, type ModuleInfo, type ProcessInfo, type RecordingMeta, type ThreadInfo,
} from './recording-types.js';

/** A thread as stored; ThreadInfo is the frozen copy readers get. */
export interface StoredThread {
  id: number;
  osTid: number;
  clrThreadId: number;
  name: string;
  firstSeenMono: number;
  ended: boolean;
  /** Where its last-seen time is kept (RecordingStore.lastSeen): a double stored into an object field may be boxed, an allocation per sample. */
  index: number;
}

/** Thread ids below this are also found by array index (writers number threads from 1): no map lookup per sample. */
export const DIRECT_THREAD_IDS = 1 << 16;

const INCOMPLETE_STACK: FunctionInfo = Object.freeze({
  id: INCOMPLETE_STACK_FUNCTION_ID, kind: FunctionKind.Synthetic, name: INCOMPLETE_STACK_NAME, module: '', file: '', moduleId: 0, token: 0,
});

export class RecordingStore {
  // RecordingOptions.keepSamples: true, false or 'recent' (until restored).
  sampleMode: boolean | 'recent';
  // Samples seen while sampleMode is false.
  uncounted = 0;
  // With 'recent': the index of the first sample `columns` holds.
  sampleBase = 0;
  // Recording.dropBefore's cut: samples, events and pauses before it were let go.
  keptFrom = -Infinity;
  meta: RecordingMeta | undefined;
  stats: StatsRecord | undefined;
  end: EndRecord | undefined;
  finished = false;
  // END received or finish() called: one flag so the sample path tests a single boolean.
  closed = false;
  cut = false;
  readonly threads = new Map<number, StoredThread>();
  readonly threadById: (StoredThread | undefined)[] = [];
  // Each thread's last-seen time, by StoredThread.index.
  lastSeen = new Float64Array(64);
  readonly functions = new Map<number, FunctionInfo>();
  // The same functions in order of definition (never redefined nor dropped): readers that index
  // names read only the functions defined since they last looked.
  readonly functionOrder: FunctionInfo[] = [];
  readonly modules = new Map<number, ModuleInfo>();
  readonly frames = new Map<number, FrameInfo>();
  readonly strings = new Map<number, string>();
  columns: SampleColumns;
  readonly events = new EventColumns();
  // The records of every timeline kind (SUSPENSION, ...), column by column.
  readonly timelines = new TimelineColumns();
  readonly stacks: StackTable;
  // Two bytes a character of every name and text held, for byteSize().
  stringBytes = 0;
  // Several processes in one recording: thread id -> index in processes. Empty for one process.
  readonly processes: ProcessInfo[] = [];
  readonly threadProcess = new Map<number, number>();
  readonly asyncChains = new AsyncChains();
  // The request each sample was taken in (REQUEST_SAMPLES), by the same sample indexes as asyncChains.
  readonly requestMarks = new PerSampleMarks();

  constructor(sampleMode: boolean | 'recent', stacks: StackTable) {
    this.sampleMode = sampleMode;
    // No capacity at all when samples are not kept: the model holds no per-sample bytes.
    this.columns = new SampleColumns(sampleMode === false ? 0 : 1024);
    this.stacks = stacks;
    this.functions.set(INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK);
    this.functionOrder.push(INCOMPLETE_STACK);
  }

  /** Stores a thread seen for the first time. */
  addThread(thread: StoredThread, mono: number): void {
    if (thread.index === this.lastSeen.length) {
      const grown = new Float64Array(this.lastSeen.length * 2);
      grown.set(this.lastSeen);
      this.lastSeen = grown;
    }
    this.lastSeen[thread.index] = mono;
    this.threads.set(thread.id, thread);
    if (thread.id < DIRECT_THREAD_IDS) this.threadById[thread.id] = thread;
  }

  threadInfo(t: StoredThread): ThreadInfo {
    return { id: t.id, osTid: t.osTid, clrThreadId: t.clrThreadId, name: t.name, firstSeenMono: t.firstSeenMono, lastSeenMono: this.lastSeen[t.index], ended: t.ended };
  }
}
