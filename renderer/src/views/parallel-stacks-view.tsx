// Parallel stacks: the threads' stacks merged into one tree of blocks, each block a run of
// frames the same threads share, with those threads listed; a thread's chip opens its stack.

import { useMemo, useState, type ReactElement } from 'react';
import type { ParallelBy, ParallelMode } from '../state/app-state.js';
import { stackBlocks, threadStack } from '../state/parallel-blocks.js';
import { describeWindow } from '../state/view-queries.js';
import type { ParallelTree, ThreadSummary } from '../worker/protocol.js';
import { FoldBar } from './fold-bar.js';
import { ProcessFilter } from './process-filter.js';
import { StackBlockView } from './stack-block.js';
import { ThreadStackPanel } from './thread-stack-panel.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function ParallelStacksView(): ReactElement {
  const ws = useWorkstation();
  const tree = useAppState((s) => s.parallel);
  const mode = useAppState((s) => s.parallelMode);
  const by = useAppState((s) => s.parallelBy);
  const window = useAppState((s) => s.flameOptions.window);
  const summary = useAppState((s) => s.summary);
  // A stopped recording is not refreshed: its current stacks are the last ones it holds.
  const live = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'recording');
  const [thread, setThread] = useState<number | null>(null);
  const blocks = useMemo(() => (tree === null ? [] : stackBlocks(tree)), [tree]);
  const threads = useMemo(() => new Map<number, ThreadSummary>((summary?.threads ?? []).map((t) => [t.id, t])), [summary]);

  const modeButton = (m: ParallelMode, text: string): ReactElement => (
    <button type="button" className={mode === m ? 'on' : ''} aria-pressed={mode === m} data-testid={`parallel-mode-${m}`} onClick={() => ws.view.setParallelMode(m)}>
      {text}
    </button>
  );
  const byButton = (b: ParallelBy, text: string, title: string): ReactElement => (
    <button type="button" className={shownBy === b ? 'on' : ''} aria-pressed={shownBy === b} data-testid={`parallel-by-${b}`} title={title} onClick={() => ws.view.setParallelBy(b)}>
      {text}
    </button>
  );
  const hasAsync = summary?.hasAsync === true;
  // A recording without async stacks has threads only, whatever was picked for another one.
  const shownBy: ParallelBy = hasAsync ? by : 'threads';
  const operations = tree !== null && tree.by === 'operations';

  return (
    <div className="parallel-view">
      <div className="toolbar">
        {hasAsync && (
          <div className="segmented" role="group" aria-label="Stacks of">
            {byButton('threads', 'Threads', 'Each thread\'s stack')}
            {byButton('operations', 'Async operations', 'Each logical operation: where it is suspended (its awaiting methods above [suspended]), or the thread running it')}
          </div>
        )}
        <div className="segmented" role="group" aria-label="Mode">
          {modeButton('current', 'Current stacks')}
          {modeButton('window', 'Over time')}
        </div>
        <span className="hint">
          {operations
            ? (mode === 'current'
              ? (live
                ? 'Each async operation where it is now: suspended, counted where it waits, or running on a thread; refreshed live.'
                : 'Each async operation where it was at the recording\'s end: suspended, counted where it waited, or running on a thread.')
              : `Operations at each point, summed over the ticks of the ${describeWindow(window)}.`)
            : (mode === 'current'
              ? (live ? 'Each thread\'s latest stack, refreshed live.' : 'Each thread\'s last stack in the recording.')
              : `Every sampled stack in the ${describeWindow(window)} (set in the flame graph or on the GC timeline).`)}
        </span>
        {!operations && <ProcessFilter />}
        {tree !== null && !operations && <span className="hint" data-testid="parallel-thread-count">{tree.threads[0]?.length ?? 0} threads</span>}
        {tree !== null && operations && <span className="hint" data-testid="parallel-operation-count">{tree.total[0] ?? 0} operations</span>}
      </div>
      <FoldBar />
      <div className="parallel-body">
        <div className="parallel-tree" data-testid="parallel-tree">
          {tree === null && <p className="empty">Waiting for samples…</p>}
          {tree !== null && blocks.length === 0 && <p className="empty">{operations ? 'No async operation suspended or running in this selection.' : 'No stacks in this selection.'}</p>}
          {tree !== null && blocks.map((b) => (
            <StackBlockView key={tree.labels[tree.label[b.nodes[0]]]} tree={tree} block={b} threads={threads} selectedThread={thread} onThread={setThread} />
          ))}
        </div>
        {tree !== null && thread !== null && (
          <ThreadStackPanel tree={tree} threadId={thread} thread={threads.get(thread)} frames={stackOf(tree, thread)} onClose={() => setThread(null)} />
        )}
      </div>
    </div>
  );
}

function stackOf(tree: ParallelTree, threadId: number): string[] {
  return threadStack(tree, threadId).map((n) => tree.labels[tree.label[n]] ?? '');
}
