// Where Launch and Attach take async call stacks from (native-profiler/ASYNC-STACKS-STUDY.md): off,
// from the runtime's events (suspended time and the "Async operations" count, at a cost per
// await), or from the heap at each sample (cheaper; an attach then cannot detach).

import type { ReactElement } from 'react';
import type { AsyncStacksSource, LaunchRequest } from '../../../structs/api/contract.js';

export type AsyncStacksChoice = 'off' | AsyncStacksSource;

/** The request's fields for a choice. */
export function asyncRequest(choice: AsyncStacksChoice): Pick<LaunchRequest, 'async' | 'asyncSource'> {
  return choice === 'off' ? {} : { async: true, asyncSource: choice };
}

const TITLES: Record<AsyncStacksChoice, string> = {
  off: 'No async call stacks: each continuation shows only the thread-pool frames that ran it.',
  events: 'The methods awaiting each async continuation, from the runtime\'s task events; also the time operations spend suspended and the "Async operations" count. Costs the program time at high await rates.',
  heap: 'The methods awaiting each async continuation, read from the heap as each sample is taken; no suspended time. Cheaper at high await rates. After an attach, clrscope\'s library stays loaded in the process (quiet) when the recording ends.',
};

/** The select; `testId` names it (`launch-async`, `attach-async`). */
export function AsyncStacksSelect({ value, onChange, testId }: { value: AsyncStacksChoice; onChange(choice: AsyncStacksChoice): void; testId: string }): ReactElement {
  return (
    <label title={TITLES[value]}>
      async stacks
      <select value={value} onChange={(e) => onChange(e.target.value as AsyncStacksChoice)} data-testid={testId}>
        <option value="off">off</option>
        <option value="events">from events</option>
        <option value="heap">from the heap</option>
      </select>
    </label>
  );
}
