// React's view of the controller: one context holding the Workstation, and a hook that
// re-renders a component when the slice of state it selected changes.

import { createContext, useContext, useSyncExternalStore } from 'react';
import type { AppState } from '../state/app-state.js';
import type { Workstation } from '../state/workstation.js';

export const WorkstationContext = createContext<Workstation | null>(null);

export function useWorkstation(): Workstation {
  const ws = useContext(WorkstationContext);
  if (ws === null) throw new Error('useWorkstation outside <WorkstationContext.Provider>.');
  return ws;
}

/** `select` must return a part of the state (or a primitive), not a new object per call. */
export function useAppState<T>(select: (state: AppState) => T): T {
  const ws = useWorkstation();
  return useSyncExternalStore(
    (onChange) => ws.store.subscribe(onChange),
    () => select(ws.store.get()),
  );
}
