// One block of the parallel-stacks tree and its branches. A long shared chain shows its
// outermost and innermost frames; the ones between open on demand.

import { useState, type ReactElement } from 'react';
import type { StackBlock } from '../state/parallel-blocks.js';
import type { ParallelTree, ThreadSummary } from '../worker/protocol.js';

/** Chains longer than this are folded: the outermost frame and the innermost few stay, where the threads are and what they wait in. */
const FOLD_OVER = 6;
const KEEP_INNER = 3;

interface Props {
  tree: ParallelTree;
  block: StackBlock;
  threads: Map<number, ThreadSummary>;
  selectedThread: number | null;
  onThread(id: number): void;
}

function ThreadChip({ id, name, on, onClick }: { id: number; name: string; on: boolean; onClick(): void }): ReactElement {
  return (
    <button
      type="button" className={on ? 'chip on' : 'chip'} data-testid="pstack-thread" data-thread-id={id}
      title={`Show the stack of ${name === '' ? `thread ${id}` : name}`} onClick={onClick}
    >
      {id}{name !== '' && <span className="chip-name">{name}</span>}
    </button>
  );
}

// 'current' counts whole operations; over a window, operation-ticks may be many.
function formatOperations(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(1);
}

export function StackBlockView({ tree, block, threads, selectedThread, onThread }: Props): ReactElement {
  const [open, setOpen] = useState(false);
  const last = block.nodes[block.nodes.length - 1];
  const operations = tree.by === 'operations' ? tree.total[last] : null;
  const labels = block.nodes.map((n) => tree.labels[tree.label[n]] ?? '');
  const folded = !open && labels.length > FOLD_OVER;
  const hidden = labels.length - 1 - KEEP_INNER;
  const shown = folded ? [labels[0], ...labels.slice(labels.length - KEEP_INNER)] : labels;
  return (
    <div className="stack-branch">
      <div className="stack-block" data-testid="pstack-block" data-thread-count={block.threads.length} data-operation-count={operations ?? undefined}>
        <div className="stack-head">
          {operations === null
            ? <span className="thread-count" data-testid="pstack-thread-count">{block.threads.length} {block.threads.length === 1 ? 'thread' : 'threads'}</span>
            : <span className="thread-count" data-testid="pstack-operation-count" title="Operations at this point: suspended here, or run by the threads shown">{formatOperations(operations)} {operations === 1 ? 'operation' : 'operations'}</span>}
          <span className="thread-chips">
            {block.threads.map((id) => (
              <ThreadChip key={id} id={id} name={threads.get(id)?.name ?? ''} on={id === selectedThread} onClick={() => onThread(id)} />
            ))}
          </span>
        </div>
        <ol className="frames" data-testid="pstack-frames">
          {shown.map((label, i) => (
            <li key={i} className="frame" data-testid="pstack-frame" title={label}>
              {folded && i === 1 && (
                <button type="button" className="fold" data-testid="pstack-unfold" onClick={() => setOpen(true)}>⋯ {hidden} more frames</button>
              )}
              {label}
            </li>
          ))}
          {open && labels.length > FOLD_OVER && (
            <li><button type="button" className="fold" onClick={() => setOpen(false)}>fold</button></li>
          )}
        </ol>
      </div>
      {block.children.length > 0 && (
        <div className="stack-children">
          {block.children.map((c) => (
            <StackBlockView key={tree.labels[tree.label[c.nodes[0]]]} tree={tree} block={c} threads={threads} selectedThread={selectedThread} onThread={onThread} />
          ))}
        </div>
      )}
    </div>
  );
}
