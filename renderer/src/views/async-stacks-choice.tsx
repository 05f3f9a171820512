// Where Launch and Attach take async call stacks from (native-profiler/ASYNC-STACKS-STUDY.md): off,
// from the runtime's events (suspended time and the "Async operations" count, at a cost per
// await), or from the heap at each sample (cheaper; an attach then cannot detach). Attach also
// offers "auto", its default: from events when the process awaits little, measured before the
// attach (electron/services/workstation/recording-switches.ts).

import type { ReactElement } from 'react';
import { ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC, type AsyncStacksSource, type AttachRequest } from '../../../structs/api/contract.js';

export type AsyncStacksChoice = 'auto' | 'off' | AsyncStacksSource;

/** The request's fields for a choice ('auto' is Attach's only). */
export function asyncRequest(choice: AsyncStacksChoice): Pick<AttachRequest, 'async' | 'asyncSource' | 'asyncAuto'> {
  if (choice === 'auto') return { asyncAuto: true };
  return choice === 'off' ? {} : { async: true, asyncSource: choice };
}

const TITLES: Record<AsyncStacksChoice, string> = {
  auto: `From the runtime's events when the process completes fewer than ${ASYNC_AUTO_MAX_WORK_ITEMS_PER_SEC.toLocaleString('en-US')} thread-pool work items a second, measured for a second before the attach; off when following its awaits would cost it more. The session's message says which.`,
  off: 'No async call stacks: each continuation shows only the thread-pool frames that ran it.',
  events: 'The methods awaiting each async continuation, from the runtime\'s task events; also the time operations spend suspended and the "Async operations" count. Costs the program time at high await rates.',
  heap: 'The methods awaiting each async continuation, read from the heap as each sample is taken; no suspended time. Cheaper at high await rates. After an attach, clrscope\'s library stays loaded in the process (quiet) when the recording ends.',
};

/** The select; `testId` names it (`launch-async`, `attach-async`); `auto` offers Attach's measured choice. */
export function AsyncStacksSelect({ value, onChange, testId, auto = false }: { value: AsyncStacksChoice; onChange(choice: AsyncStacksChoice): void; testId: string; auto?: boolean }): ReactElement {
  return (
    <label title={TITLES[value]}>
      async stacks
      <select value={value} onChange={(e) => onChange(e.target.value as AsyncStacksChoice)} data-testid={testId}>
        {auto && <option value="auto">auto</option>}
        <option value="off">off</option>
        <option value="events">from events</option>
        <option value="heap">from the heap</option>
      </select>
    </label>
  );
}
