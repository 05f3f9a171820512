// The process filter and the "by process" grouping of a recording of several processes (a launch
// with child processes, or such a file: PROCESS records). A query's processIds narrow its
// threads to those processes' threads, resolved against the threads known when it is answered,
// so a live recording's new threads of a chosen process count from their first sample.

import type { LabelTable } from '../../../structs/analysis/label-table.js';
import { processPrefix } from '../../../structs/profile/merge-processes.js';
import type { ProcessInfo, RecordingMeta, ThreadInfo } from '../../../structs/profile/recording.js';

/** What the filter reads of a recording (a Recording, or its async call stacks over it). */
export interface ProcessSource {
  readonly meta: Pick<RecordingMeta, 'pid'> | undefined;
  threads(): ThreadInfo[];
  processOf(threadId: number): ProcessInfo | undefined;
}

/** A thread's process; a thread no PROCESS record names is the recording's own (HELLO's pid). */
function processOfThread(rec: ProcessSource, threadId: number): ProcessInfo | undefined {
  return rec.processOf(threadId) ?? (rec.meta === undefined ? undefined : { pid: rec.meta.pid, name: '' });
}

/** The threads a query looks at: its thread ids, narrowed to the threads of its processes; null = every thread. */
export function queryThreads(rec: ProcessSource, threadIds: readonly number[] | null, processIds: readonly number[] | null | undefined): number[] | null {
  if (processIds === undefined || processIds === null) return threadIds === null ? null : [...threadIds];
  const pids = new Set(processIds);
  const allowed = threadIds === null ? null : new Set(threadIds);
  const out: number[] = [];
  for (const t of rec.threads()) {
    const p = processOfThread(rec, t.id);
    if (p !== undefined && pids.has(p.pid) && (allowed === null || allowed.has(t.id))) out.push(t.id);
  }
  return out;
}

/** The label of the node a thread's samples go under when grouped by process: "[pid name]". */
export function processLabel(rec: ProcessSource, labels: LabelTable, threadId: number): number {
  const p = processOfThread(rec, threadId);
  return labels.ofGroup(p === undefined ? '[no process]' : processPrefix(p));
}

/** A query's grouping: the label of each thread's group node, or null when the query does not group. */
export function groupLabels(rec: ProcessSource, labels: LabelTable, query: { groupByThread: boolean; groupByProcess?: boolean }): ((threadId: number) => number) | null {
  if (query.groupByProcess === true) return (threadId) => processLabel(rec, labels, threadId);
  if (query.groupByThread) return (threadId) => labels.ofThread(threadId);
  return null;
}

