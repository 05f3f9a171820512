// The analysis of one recording as the workstation's worker and `clrscope report` both run
// it: a query (sample type, window, threads, folding) goes to the same functions in the same
// order, so the two show the same numbers by construction. Folded stacks are kept per
// folding choice, so a live recording folds only its new stacks on each refresh.

import type { FlatTree } from './flat-tree.js';
import { foldKey, type FoldOptions } from './fold-options.js';
import { FoldedStacks } from './fold.js';
import { LabelTable } from './label-table.js';
import { callTree, sandwich, type Sandwich } from './call-trees.js';
import { diffFunctions, diffTreeOfShape, diffTrees, type DiffFunctions, type DiffNormalize, type DiffTree } from './diff.js';
import { projectTree, treeShape, type TreeShape } from './tree-shape.js';
import { functionsTable, type FunctionsTable } from './functions-table.js';
import { waitSelf } from './wait-self.js';
import type { SampleSource } from './stack-source.js';
import type { SampleMetric } from '../profile/recording.js';
import { foldWeights, weighStacks, weighStacksTwice, type SampleQuery, type StackWeights } from './stack-weights.js';
import { sampleNear, threadTimeline, type ThreadTimeline, type TimelineQuery } from './thread-timeline.js';

export interface AnalysisQuery extends SampleQuery {
  fold: FoldOptions;
}

export interface WeighedStacks {
  stacks: FoldedStacks;
  weights: StackWeights;
}

export interface StackNear {
  threadId: number;
  atMs: number;
  cpuNs: number;
  wallNs: number;
  /** Frame labels, root first, folded as asked. */
  frames: string[];
}

// Folding choices kept per recording: the views' current one plus a few the user flips between.
const FOLDS_KEPT = 4;
// Sample passes kept: a refresh's queries plus a diff's two windows.
const WEIGHTS_KEPT = 4;

/**
 * The whole recording's weights of a metric kept elsewhere as the samples arrive (the worker's
 * running sums), equal to weighStacks over every sample; undefined when not kept for it.
 */
export type WholeWeights = (metric: SampleMetric) => StackWeights | undefined;

export class ProfileAnalysis {
  readonly source: SampleSource;
  private readonly folds = new Map<string, FoldedStacks>();
  private readonly labels = new WeakMap<FoldedStacks, LabelTable>();
  private readonly weights = new Map<string, StackWeights>();
  private readonly shapes = new WeakMap<FoldedStacks, TreeShape>();
  private readonly whole: WholeWeights | undefined;

  /** `whole`: a query of the whole recording (no window, every thread) takes its weights from there, not from the samples. */
  constructor(source: SampleSource, whole?: WholeWeights) {
    this.source = source;
    this.whole = whole;
  }

  folded(options: FoldOptions): FoldedStacks {
    const key = foldKey(options);
    let fold = this.folds.get(key);
    if (fold !== undefined) {
      // Most recently used last, so the oldest is the first to go.
      this.folds.delete(key);
      this.folds.set(key, fold);
      return fold;
    }
    fold = new FoldedStacks(this.source, options);
    this.folds.set(key, fold);
    if (this.folds.size > FOLDS_KEPT) this.folds.delete(this.folds.keys().next().value as string);
    return fold;
  }

  /** The labels of a folded view's frames, kept with it: their sorted ranks are reused by every tree. */
  labelsOf(stacks: FoldedStacks): LabelTable {
    let labels = this.labels.get(stacks);
    if (labels === undefined) {
      labels = new LabelTable(stacks);
      this.labels.set(stacks, labels);
    }
    return labels;
  }

  /**
   * The tree of every stack of a folded view, kept while the view has no new stacks or labels
   * (a stopped recording: always), so a tree or a diff only fills it with values.
   */
  shapeOf(stacks: FoldedStacks): TreeShape {
    const labels = this.labelsOf(stacks);
    let shape = this.shapes.get(stacks);
    if (shape === undefined || shape.stackCount !== stacks.stackCount || shape.labelCount !== labels.count) {
      shape = treeShape(stacks, labels);
      // Building it may have looked up labels for frames seen first here.
      shape.labelCount = labels.count;
      this.shapes.set(stacks, shape);
    }
    return shape;
  }

  weigh(query: AnalysisQuery): WeighedStacks {
    const stacks = this.folded(query.fold);
    return { stacks, weights: foldWeights(stacks, this.recordedWeights(query)) };
  }

  /**
   * The pass over the samples, remembered while the recording does not grow: the views of one
   * refresh (the functions table and the sandwich, a diff's sides) and a stopped recording's
   * every later question share it.
   */
  private recordedWeights(query: SampleQuery): StackWeights {
    const key = this.weightsKey(query);
    const known = this.weights.get(key);
    if (known !== undefined) return known;
    const wholeRecording = query.fromMs === undefined && query.toMs === undefined && (query.threadIds ?? null) === null && query.samples === undefined;
    const w = (wholeRecording ? this.whole?.(query.metric) : undefined) ?? weighStacks(this.source, query);
    this.keepWeights(key, w);
    return w;
  }

  /** Two windows of this recording (same metric, threads and folding): one pass over the samples for both. */
  weighWindows(a: AnalysisQuery, b: AnalysisQuery): [WeighedStacks, WeighedStacks] {
    const stacks = this.folded(a.fold);
    const ka = this.weightsKey(a);
    const kb = this.weightsKey(b);
    let wa = this.weights.get(ka);
    let wb = this.weights.get(kb);
    if (wa === undefined || wb === undefined) {
      [wa, wb] = weighStacksTwice(this.source, a, b);
      this.keepWeights(ka, wa);
      this.keepWeights(kb, wb);
    }
    return [{ stacks, weights: foldWeights(stacks, wa) }, { stacks, weights: foldWeights(stacks, wb) }];
  }

  private weightsKey(query: SampleQuery): string {
    return JSON.stringify([query.metric, query.fromMs ?? null, query.toMs ?? null, query.threadIds ?? null, query.samples?.key ?? null, this.source.sampleCount, this.source.stackCount]);
  }

  private keepWeights(key: string, w: StackWeights): void {
    this.weights.set(key, w);
    if (this.weights.size > WEIGHTS_KEPT) this.weights.delete(this.weights.keys().next().value as string);
  }

  functions(query: AnalysisQuery): FunctionsTable {
    const { stacks, weights } = this.weigh(query);
    return functionsTable(stacks, weights, query.metric === 'wall' ? waitSelf(stacks) : undefined);
  }

  sandwich(query: AnalysisQuery, name: string): Sandwich | null {
    const { stacks, weights } = this.weigh(query);
    return sandwich(stacks, weights, name, this.labelsOf(stacks));
  }

  tree(query: AnalysisQuery, inverted: boolean): FlatTree {
    const weighed = this.weigh(query);
    if (inverted) return callTree(weighed.stacks, weighed.weights, inverted, this.labelsOf(weighed.stacks));
    return this.filledTree(weighed);
  }

  /** The top-down call tree of weighed stacks of this recording: its kept shape filled with the weights. */
  filledTree({ stacks, weights }: WeighedStacks): FlatTree {
    return projectTree(this.shapeOf(stacks), [weights.value], [1], weights.sampleCount).tree;
  }

  timeline(query: TimelineQuery): ThreadTimeline {
    return threadTimeline(this.source, query);
  }

  stackNear(threadId: number, atMs: number, fold: FoldOptions): StackNear | null {
    const near = sampleNear(this.source, threadId, atMs);
    if (near === null) return null;
    const stacks = this.folded(fold);
    const f = stacks.stackFrames(stacks.ofStack(near.stackId));
    const frames: string[] = [];
    for (let i = f.length - 1; i >= 0; i--) frames.push(stacks.frameLabel(f[i]));
    return { threadId, atMs: near.atMs, cpuNs: near.cpuNs, wallNs: near.wallNs, frames };
  }
}

export interface Diff {
  tree: DiffTree;
  functions: DiffFunctions;
}

/** `before` and `after` may be the same analysis (two windows of one recording) or two recordings. */
export function diffAnalyses(before: ProfileAnalysis, beforeQuery: AnalysisQuery, after: ProfileAnalysis, afterQuery: AnalysisQuery, normalize: DiffNormalize): Diff {
  const sameSamples = before === after && foldKey(beforeQuery.fold) === foldKey(afterQuery.fold) && beforeQuery.metric === afterQuery.metric
    && JSON.stringify(beforeQuery.threadIds ?? null) === JSON.stringify(afterQuery.threadIds ?? null)
    && beforeQuery.samples === undefined && afterQuery.samples === undefined;
  const [b, a] = sameSamples ? after.weighWindows(beforeQuery, afterQuery) : [before.weigh(beforeQuery), after.weigh(afterQuery)];
  // Wall time's waits are the waiting method's self on both sides, as in functions().
  const bs = { stacks: b.stacks, weights: b.weights, selfOf: beforeQuery.metric === 'wall' ? waitSelf(b.stacks) : undefined };
  const as = { stacks: a.stacks, weights: a.weights, selfOf: afterQuery.metric === 'wall' ? waitSelf(a.stacks) : undefined };
  // Two windows of one recording fill its tree shape; two recordings are merged side by side.
  const tree = b.stacks === a.stacks
    ? diffTreeOfShape(after.shapeOf(a.stacks), b.weights, a.weights, normalize)
    : diffTrees(before.filledTree(b), after.filledTree(a), b.weights.totalValue, a.weights.totalValue, normalize);
  return { tree, functions: diffFunctions(bs, as, normalize) };
}
