// What the controller's rooms share: the app state, the API (through the bridge), the profile
// worker and the refresh of the visible view. Each room (session-feed.ts, view-options.ts,
// diff-baseline.ts, ...) gets this one object instead of a back reference to the controller,
// so a room sees only what every room may touch.

import type { SessionInfo, WorkstationApi } from '../../../structs/api/contract.js';
import type { AppState } from './app-state.js';
import type { ProfileWorkerClient } from './profile-worker-client.js';
import type { RefreshScheduler, Timers } from './refresh-scheduler.js';
import type { Store } from './store.js';

export interface StationContext {
  readonly store: Store<AppState>;
  readonly api: WorkstationApi;
  readonly worker: ProfileWorkerClient;
  readonly refresher: RefreshScheduler;
  readonly timers: Timers;
  /** Shows one sentence in the error banner. */
  showError(message: string): void;
}

export function selectedSession(state: AppState): SessionInfo | undefined {
  return state.sessions.find((s) => s.id === state.selectedSessionId);
}

/** The reply's sentence as the views show it: always ending with a full stop. */
export function sentence(message: string): string {
  return message.endsWith('.') ? message : `${message}.`;
}

let jobs = 0;
/** A name for a job this page may cancel (an open, an export): unique among the pages of this workstation. */
export function newJobId(kind: string): string {
  jobs += 1;
  return `${kind}-${jobs}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Asks the main process to stop sending a session's stream; best effort: the session may be closed already, and its chunks are ignored here anyway. */
export function stopHearing(api: WorkstationApi, sessionId: string): void {
  api.unsubscribe(sessionId).catch(() => undefined);
}
