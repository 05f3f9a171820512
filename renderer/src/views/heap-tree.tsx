// The Heap tab's side panes: the shortest paths from roots to the picked type's objects, grouped
// (`[root] → Type → .field Type → … → TYPE`, with how many objects each holds, or the change in
// that with a baseline), and the dominator tree: each object under the one whose death would free
// it, the most retaining first, opened a level at a time.

import type { ReactElement } from 'react';
import type { HeapDominatorNode } from '../../../structs/api/contract.js';
import { formatBytes, formatCount } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function HeapPaths(): ReactElement {
  const type = useAppState((s) => s.heap.selectedType);
  const paths = useAppState((s) => s.heap.paths);
  const compared = useAppState((s) => s.heap.baselineId !== null);
  return (
    <section className="heap-paths" data-testid="heap-paths">
      <h3>{type === null ? 'Paths from roots' : `Paths from roots to ${type}`}</h3>
      {type === null ? <div className="hint">Pick a type to see what keeps its objects alive.</div>
        : paths === null ? <div className="hint">Finding the shortest paths…</div>
          : paths.length === 0 ? <div className="hint">{compared ? `No path to ${type} changed.` : `No ${type} object is reachable from a root.`}</div>
            : (
              <ol>
                {paths.map((p) => (
                  <li key={p.path.join('\u0000')} data-testid="heap-path" data-count={p.count} data-delta={p.countDelta ?? ''} data-path={p.path.join(' → ')}>
                    <span className="heap-path-count">{compared ? `${(p.countDelta ?? 0) > 0 ? '+' : ''}${formatCount(p.countDelta ?? 0)} (${formatCount(p.count)})` : formatCount(p.count)}</span>
                    {' '}{p.path.join(' → ')}
                  </li>
                ))}
              </ol>
            )}
    </section>
  );
}

function TreeLevel({ node, depth }: { node: number; depth: number }): ReactElement | null {
  const ws = useWorkstation();
  const children = useAppState((s) => s.heap.tree[node]);
  const expanded = useAppState((s) => s.heap.expanded);
  if (children === undefined) return depth === 0 ? <div className="hint">Loading…</div> : null;
  const row = (c: HeapDominatorNode): ReactElement => {
    const open = expanded.includes(c.node);
    return (
      <li key={c.node}>
        <div className="heap-tree-row" data-testid="heap-tree-row" data-node={c.node} data-type={c.type} data-retained={c.retainedBytes} style={{ paddingLeft: `${depth}em` }}>
          <button type="button" className="heap-toggle" disabled={c.children === 0} onClick={() => ws.heap.toggle(c.node)} aria-expanded={open}>
            {c.children === 0 ? '·' : open ? '▾' : '▸'}
          </button>
          <span className="heap-tree-type" title={c.type}>{c.type}</span>
          <span className="heap-tree-bytes">{formatBytes(c.retainedBytes)} retained, {formatBytes(c.bytes)} own{c.children > 0 ? `, ${formatCount(c.children)} dominated` : ''}</span>
        </div>
        {open && <TreeLevel node={c.node} depth={depth + 1} />}
      </li>
    );
  };
  return (
    <ul className="heap-tree-level">
      {children.nodes.map(row)}
      {children.total > children.nodes.length && <li className="hint" style={{ paddingLeft: `${depth}em` }}>… and {formatCount(children.total - children.nodes.length)} more that retain less</li>}
    </ul>
  );
}

export function HeapTree(): ReactElement {
  const shown = useAppState((s) => s.heap.snapshotId !== null);
  return (
    <section className="heap-tree" data-testid="heap-tree">
      <h3>Dominator tree</h3>
      {shown ? <TreeLevel node={-1} depth={0} /> : <div className="hint">No snapshot shown.</div>}
    </section>
  );
}
