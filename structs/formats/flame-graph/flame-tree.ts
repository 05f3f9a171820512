// The tree a shared flame graph draws (flame.html, flame.svg): every stack of one metric merged
// from its root, frames named as the views name them, in preorder. Frames narrower than
// MIN_SHARE of the whole are left out (their time stays in their caller's total), which bounds
// the file by what can be seen rather than by the recording's length: an hour of samples has
// more stacks, not more frames wide enough to draw.

import { sumByStack } from '../../profile/aggregate.js';
import { EVENT_METRICS, eventMetricsPresent, type ProfileMetric } from '../../profile/event-metrics.js';
import { frameLabel } from '../../profile/frame-label.js';
import type { Recording } from '../../profile/recording.js';

/** A frame narrower than this share of the root (1/5000: a fifth of a pixel at 1000 px) is not written. */
export const MIN_SHARE = 1 / 5000;

export interface FlameTree {
  metric: ProfileMetric;
  /** What a person calls it ("CPU time"), and the unit of its values. */
  title: string;
  unit: 'nanoseconds' | 'bytes' | 'count';
  /** Names, each once; nodes point into it. */
  names: string[];
  /** Per node, in preorder: its name's index, its depth (the root, "all", is 0), its total. */
  name: number[];
  depth: number[];
  total: number[];
}

interface Trie {
  name: number;
  total: number;
  children: Map<number, Trie>;
}

/** The metrics a shared flame graph offers for this recording: CPU and wall when it has samples, then each event type it has. */
export function flameMetrics(rec: Recording): ProfileMetric[] {
  const out: ProfileMetric[] = [];
  if (rec.sampleCount > 0) out.push('cpu', 'wall');
  return [...out, ...eventMetricsPresent(rec)];
}

export function metricTitle(metric: ProfileMetric): { title: string; unit: FlameTree['unit'] } {
  if (metric === 'cpu') return { title: 'CPU time', unit: 'nanoseconds' };
  if (metric === 'wall') return { title: 'Wall time', unit: 'nanoseconds' };
  if (metric === 'samples') return { title: 'Samples', unit: 'count' };
  const info = EVENT_METRICS.find((m) => m.metric === metric);
  return { title: info?.title ?? metric, unit: info?.unit ?? 'count' };
}

export function buildFlameTree(rec: Recording, metric: ProfileMetric): FlameTree {
  const sums = sumByStack(rec, metric);
  const names: string[] = ['all'];
  const nameIds = new Map<string, number>();
  const labelOf: number[] = [];
  const nameOfFunction = (fn: number): number => {
    let id: number | undefined = labelOf[fn];
    if (id === undefined) {
      const info = rec.functionInfo(fn);
      const label = info === undefined ? `[function ${fn}]` : frameLabel(info);
      id = nameIds.get(label);
      if (id === undefined) {
        id = names.length;
        names.push(label);
        nameIds.set(label, id);
      }
      labelOf[fn] = id;
    }
    return id;
  };
  const root: Trie = { name: 0, total: 0, children: new Map() };
  for (let stack = 0; stack < sums.length; stack++) {
    const value = sums[stack];
    if (value === 0) continue;
    const frames = rec.stackFrames(stack);
    root.total += value;
    let node = root;
    // Stacks are leaf first; the graph grows from the root.
    for (let i = frames.length - 1; i >= 0; i--) {
      const name = nameOfFunction(frames[i]);
      let child = node.children.get(name);
      if (child === undefined) {
        child = { name, total: 0, children: new Map() };
        node.children.set(name, child);
      }
      child.total += value;
      node = child;
    }
  }
  const { title, unit } = metricTitle(metric);
  const tree: FlameTree = { metric, title, unit, names: [], name: [], depth: [], total: [] };
  const min = root.total * MIN_SHARE;
  const used = new Map<number, number>();
  const stack: { node: Trie; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: Trie; depth: number };
    let id = used.get(node.name);
    if (id === undefined) {
      id = tree.names.length;
      tree.names.push(names[node.name]);
      used.set(node.name, id);
    }
    tree.name.push(id);
    tree.depth.push(depth);
    tree.total.push(node.total);
    // Widest first, drawn left to right: pushed in reverse so the widest comes off the stack first.
    const kids = [...node.children.values()].filter((c) => c.total >= min && c.total > 0).sort((a, b) => b.total - a.total || (names[a.name] < names[b.name] ? -1 : 1));
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i], depth: depth + 1 });
  }
  return tree;
}

/** A value as the graph's tooltips say it: ms for times, KB/MB for bytes, a count otherwise. */
export function formatValue(value: number, unit: FlameTree['unit']): string {
  if (unit === 'nanoseconds') return `${(value / 1e6).toLocaleString('en-US', { maximumFractionDigits: value < 1e7 ? 2 : 0 })} ms`;
  if (unit === 'bytes') {
    if (value >= 1 << 20) return `${(value / (1 << 20)).toFixed(1)} MB`;
    if (value >= 1024) return `${(value / 1024).toFixed(1)} KB`;
    return `${Math.round(value)} B`;
  }
  return Math.round(value).toLocaleString('en-US');
}
