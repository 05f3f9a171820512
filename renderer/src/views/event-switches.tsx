// The event samples Launch and Attach ask the profiler for (README, "Allocations, locks and
// exceptions"): exceptions and lock waits on, allocations off, as `record` has them. Allocations
// fill the Types view and the allocation flame graphs.

import { useState, type ReactElement } from 'react';

export interface EventChoice {
  exceptions: boolean;
  locks: boolean;
  alloc: boolean;
}

export const DEFAULT_EVENTS: EventChoice = { exceptions: true, locks: true, alloc: false };

export function useEventChoice(): [EventChoice, (patch: Partial<EventChoice>) => void] {
  const [choice, setChoice] = useState(DEFAULT_EVENTS);
  return [choice, (patch) => setChoice((c) => ({ ...c, ...patch }))];
}

/** The three switches; `prefix` names their test ids (`launch-alloc`, `attach-alloc`). */
export function EventSwitches({ choice, onChange, prefix }: { choice: EventChoice; onChange(patch: Partial<EventChoice>): void; prefix: string }): ReactElement {
  return (
    <>
      <label className="check" title="Sampled allocations with their stacks: the Types view, allocated bytes in the flame graph and what led to a GC. Costs the program a little time.">
        <input type="checkbox" checked={choice.alloc} onChange={(e) => onChange({ alloc: e.target.checked })} data-testid={`${prefix}-alloc`} />
        allocations
      </label>
      <label className="check" title="Lock waits (contention) with their stacks and how long each waited">
        <input type="checkbox" checked={choice.locks} onChange={(e) => onChange({ locks: e.target.checked })} data-testid={`${prefix}-locks`} />
        locks
      </label>
      <label className="check" title="Every exception thrown, with its stack and message: the Exceptions view">
        <input type="checkbox" checked={choice.exceptions} onChange={(e) => onChange({ exceptions: e.target.checked })} data-testid={`${prefix}-exceptions`} />
        exceptions
      </label>
    </>
  );
}
