// The full stack of one thread, outermost caller first, beside the merged tree.

import type { ReactElement } from 'react';
import type { ParallelTree, ThreadSummary } from '../worker/protocol.js';
import { formatNs } from './format.js';

interface Props {
  tree: ParallelTree;
  threadId: number;
  thread: ThreadSummary | undefined;
  frames: string[];
  onClose(): void;
}

export function ThreadStackPanel({ threadId, thread, frames, onClose }: Props): ReactElement {
  return (
    <aside className="thread-stack" data-testid="thread-stack">
      <div className="toolbar">
        <h3 className="grow" data-testid="thread-stack-title">
          {thread?.name !== undefined && thread.name !== '' ? thread.name : `thread ${threadId}`}
          <span className="hint"> id {threadId}{thread !== undefined ? `, tid ${thread.osTid}` : ''}</span>
        </h3>
        <button type="button" className="link" onClick={onClose} aria-label="Close">✕</button>
      </div>
      {thread !== undefined && (
        <p className="hint">CPU {formatNs(thread.cpuNs)}, wall {formatNs(thread.wallNs)}{thread.ended ? ', ended' : ''}</p>
      )}
      <ol className="frames full" data-testid="thread-stack-frames">
        {frames.length === 0 && <li className="empty">No stack for this thread in this selection.</li>}
        {frames.map((f, i) => <li key={i} className="frame" title={f}>{f}</li>)}
      </ol>
    </aside>
  );
}
