// The views a tab shows of a whole recording that need nothing but the recording: a timeline
// kind's view registers its analysis here (one line), and the workstation's worker answers it,
// the renderer's state keeps its answer and the tab that names it (renderer/src/state/tabs.ts)
// asks for it, all by this name. ARCHITECTURE.md, "How to add a profile type".

import type { Recording } from '../profile/recording.js';
import { poolStory } from './pool-story.js';
import { requestsTab } from './request-histogram.js';

export const RECORDING_VIEWS = {
  /** The thread pool's story: its timeline, the sites blocking its threads, the diagnosis. */
  pool: poolStory,
  /** HTTP requests per endpoint with their latency histograms. */
  requests: requestsTab,
} as const satisfies Record<string, (rec: Recording) => unknown>;

export type RecordingViewId = keyof typeof RECORDING_VIEWS;

export type RecordingViewData<K extends RecordingViewId> = ReturnType<(typeof RECORDING_VIEWS)[K]>;

/** What the renderer holds of each: null until asked and answered. */
export type RecordingViewsState = { [K in RecordingViewId]: RecordingViewData<K> | null };

export const NO_RECORDING_VIEWS = Object.freeze(Object.fromEntries(Object.keys(RECORDING_VIEWS).map((id) => [id, null]))) as RecordingViewsState;

export function isRecordingViewId(value: unknown): value is RecordingViewId {
  return typeof value === 'string' && Object.hasOwn(RECORDING_VIEWS, value);
}

/** View `id` of `rec`. */
export function recordingView<K extends RecordingViewId>(rec: Recording, id: K): RecordingViewData<K> {
  return RECORDING_VIEWS[id](rec) as RecordingViewData<K>;
}
