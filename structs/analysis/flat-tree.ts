// The one tree shape every view and the report share: the flame graph, parallel stacks, the
// callers/callees sandwich, call trees and diffs are all FlatTrees, so one renderer draws them
// and one text form (flat-tree-text.ts) compares them in tests.

/**
 * A call tree flattened in depth-first preorder: node 0 is the synthetic root; a node's
 * children follow it, its subtree ends where the next node of its depth or less begins.
 * `label` indexes `labels`; `total` includes the node's descendants, `self` does not.
 */
export interface FlatTree {
  nodeCount: number;
  label: Int32Array;
  parent: Int32Array;
  depth: Uint16Array;
  total: Float64Array;
  self: Float64Array;
  labels: string[];
  /** Per label: 0 managed, 1 native, 2 synthetic (FunctionKind), 3 thread. */
  labelKind: Uint8Array;
  /** The sum over the root: all time in the query. */
  totalValue: number;
  sampleCount: number;
  /**
   * Unix-epoch ms (the target's HELLO clock pair applied) of the newest sample merged into a
   * flame tree; absent when it has none, and on parallel trees. Lets a test or a benchmark
   * tell how old the freshest data on screen is.
   */
  newestSampleUnixMs?: number;
}
