// What the analysis reads of a recording: its samples (time, thread, stack, values) and its
// stack and function tables. A Recording is one; a FoldedStacks (fold.ts) is a StackSource
// over the same samples with other stacks. Nothing here depends on how ingestion stores bytes.

import type { FunctionInfo } from '../profile/frame-label.js';
import type { SampleColumnViews, ThreadInfo } from '../profile/recording.js';
import type { SuspensionRecord } from '../wire/records.js';

export interface StackSource {
  readonly stackCount: number;
  /** Frames of a stack, leaf first (function ids of this source). */
  stackFrames(stackId: number): Uint32Array;
  functionInfo(functionId: number): FunctionInfo | undefined;
  thread(threadId: number): ThreadInfo | undefined;
  /** When known: every function id is below this (ids 0..functionCount-1), so a search by name can scan them directly. */
  readonly functionCount?: number;
}

export interface SampleSource extends StackSource {
  /** Absent until the recording's HELLO: then there are no samples either. */
  readonly meta: { readonly startMono: number; readonly intervalNs: number } | undefined;
  readonly sampleCount: number;
  sampleColumns(): SampleColumnViews;
  threads(): ThreadInfo[];
  suspensions(): readonly SuspensionRecord[];
}
