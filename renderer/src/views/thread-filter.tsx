// Which threads the flame graph counts: a drop-down of the recording's threads with their
// CPU and wall totals, busiest first.

import type { ReactElement } from 'react';
import { ChecklistDropdown } from './checklist-dropdown.js';
import { formatNs } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function ThreadFilter(): ReactElement {
  const ws = useWorkstation();
  const summary = useAppState((s) => s.summary);
  const selected = useAppState((s) => s.flameOptions.threadIds);
  const threads = [...(summary?.threads ?? [])].sort((a, b) => b.cpuNs - a.cpuNs || b.wallNs - a.wallNs);
  return (
    <ChecklistDropdown
      testId="thread-filter"
      optionTestId="thread-option"
      label={selected === null ? 'All threads' : `${selected.length} of ${threads.length} threads`}
      columns={['thread', '#tid', '#CPU', '#wall']}
      rows={threads.map((t) => ({
        id: t.id,
        muted: t.ended,
        data: { 'data-thread-name': t.name },
        cells: [t.name === '' ? `thread ${t.id}` : t.name, t.osTid, formatNs(t.cpuNs), formatNs(t.wallNs)],
      }))}
      selected={selected}
      onChange={(threadIds) => ws.view.setFlameOptions({ threadIds })}
    />
  );
}
