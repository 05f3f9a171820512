// The workstation's flame graph as the shared graphs draw it: the tree a view shows (its metric,
// folding, threads and time window already applied by the worker) turned into a FlameTree, for
// "Copy as SVG" (zoomed and searched as on screen) and "Save as HTML" (a page that opens where
// the view was: the same zoom, the same search).

import type { FlatTree } from '../../analysis/flat-tree.js';
import type { ProfileMetric } from '../../profile/event-metrics.js';
import { metricTitle, MIN_SHARE, type FlameTree } from './flame-tree.js';
import { flameHtml } from './to-flame-html.js';
import { flameSvg, treeLinks } from './to-flame-svg.js';

/** What the view shows: its tree and metric, where it is zoomed (labels from the root's child down), what it searches. */
export interface ViewGraph {
  tree: FlatTree;
  metric: ProfileMetric;
  zoom: readonly string[];
  /** The search box's text ('' for none), as the HTML page takes it. */
  search: string;
  /** The view's own test of a name (the search, or the function picked in a table); null: nothing highlighted. */
  match: ((name: string) => boolean) | null;
  inverted: boolean;
  title: string;
}

/**
 * The view's tree as a FlameTree, in the same preorder, nodes under `minShare` of the root left
 * out with their subtrees (their value stays in their caller's total). The root is "all".
 */
export function flameTreeOfView(tree: FlatTree, metric: ProfileMetric, minShare = 0): FlameTree {
  const { title, unit } = metricTitle(metric);
  const out: FlameTree = { metric, title, unit, names: [], name: [], depth: [], total: [] };
  if (tree.nodeCount === 0) {
    out.names.push('all');
    out.name.push(0);
    out.depth.push(0);
    out.total.push(0);
    return out;
  }
  const min = tree.total[0] * minShare;
  const ids = new Map<string, number>();
  const nameId = (label: string): number => {
    let id = ids.get(label);
    if (id === undefined) {
      id = out.names.length;
      out.names.push(label);
      ids.set(label, id);
    }
    return id;
  };
  const { end } = treeLinks(Array.from(tree.depth.subarray(0, tree.nodeCount)));
  for (let i = 0; i < tree.nodeCount;) {
    if (i > 0 && (tree.total[i] < min || tree.total[i] <= 0)) {
      i = end[i];
      continue;
    }
    out.name.push(nameId(i === 0 ? 'all' : tree.labels[tree.label[i]]));
    out.depth.push(tree.depth[i]);
    out.total.push(tree.total[i]);
    i++;
  }
  return out;
}

/** The node `path` leads to, or the deepest one on the way the tree has (0, the root, for none): the views' zoom rule. */
export function nodeAtPath(tree: FlameTree, path: readonly string[]): number {
  const { end } = treeLinks(tree.depth);
  let node = 0;
  for (const label of path) {
    let found = -1;
    for (let c = node + 1; c < end[node]; c = end[c]) {
      if (tree.names[tree.name[c]] === label) {
        found = c;
        break;
      }
    }
    if (found < 0) break;
    node = found;
  }
  return node;
}

/** The matches' count and their share of the whole (a match under a match counted once), as the views say it. */
export function matchedShare(tree: FlameTree, match: (name: string) => boolean): { count: number; share: number } {
  const { end } = treeLinks(tree.depth);
  let count = 0;
  let value = 0;
  let skipUntil = -1;
  for (let i = 1; i < tree.name.length; i++) {
    if (!match(tree.names[tree.name[i]])) continue;
    count++;
    if (i >= skipUntil) {
      value += tree.total[i];
      skipUntil = end[i];
    }
  }
  return { count, share: tree.total[0] > 0 ? value / tree.total[0] : 0 };
}

/** The view as flamegraph.pl's SVG: zoomed where the view is, its matches in magenta, said at the bottom. */
export function viewFlameSvg(view: ViewGraph): string {
  const tree = flameTreeOfView(view.tree, view.metric);
  const zoom = nodeAtPath(tree, view.zoom);
  const said: string[] = [];
  if (zoom > 0) said.push(`zoomed to ${tree.names[tree.name[zoom]]}`);
  if (view.match !== null) {
    const { count, share } = matchedShare(tree, view.match);
    said.push(`matched ${count} ${count === 1 ? 'frame' : 'frames'}, ${(100 * share).toFixed(2)}% of all`);
  }
  return flameSvg(tree, view.title, { zoom, match: view.match, inverted: view.inverted, caption: said.join('; ') });
}

/** The view as one HTML page (flame.html's), its frames of MIN_SHARE and up, opening at the view's zoom and search. */
export function viewFlameHtml(view: ViewGraph): string {
  return flameHtml([flameTreeOfView(view.tree, view.metric, MIN_SHARE)], view.title, { zoom: [...view.zoom], search: view.search });
}
