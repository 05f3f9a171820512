// The analysis of one recording as the workstation's worker and `clrscope report` both run
// it: a query (sample type, window, threads, folding) goes to the same functions in the same
// order, so the two show the same numbers by construction. Folded stacks are kept per
// folding choice, so a live recording folds only its new stacks on each refresh.

import type { FlatTree } from './flat-tree.js';
import { foldKey, type FoldOptions } from './fold-options.js';
import { FoldedStacks } from './fold.js';
import { callTree, sandwich, type Sandwich } from './call-trees.js';
import { diffFunctions, diffTree, type DiffFunctions, type DiffNormalize, type DiffTree } from './diff.js';
import { functionsTable, type FunctionsTable } from './functions-table.js';
import type { SampleSource } from './stack-source.js';
import { foldWeights, weighStacks, type SampleQuery, type StackWeights } from './stack-weights.js';
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

export class ProfileAnalysis {
  readonly source: SampleSource;
  private readonly folds = new Map<string, FoldedStacks>();

  constructor(source: SampleSource) {
    this.source = source;
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

  weigh(query: AnalysisQuery): WeighedStacks {
    const stacks = this.folded(query.fold);
    return { stacks, weights: foldWeights(stacks, weighStacks(this.source, query)) };
  }

  functions(query: AnalysisQuery): FunctionsTable {
    const { stacks, weights } = this.weigh(query);
    return functionsTable(stacks, weights);
  }

  sandwich(query: AnalysisQuery, name: string): Sandwich | null {
    const { stacks, weights } = this.weigh(query);
    return sandwich(stacks, weights, name);
  }

  tree(query: AnalysisQuery, inverted: boolean): FlatTree {
    const { stacks, weights } = this.weigh(query);
    return callTree(stacks, weights, inverted);
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
  const b = before.weigh(beforeQuery);
  const a = after.weigh(afterQuery);
  const bs = { stacks: b.stacks, weights: b.weights };
  const as = { stacks: a.stacks, weights: a.weights };
  return { tree: diffTree(bs, as, normalize), functions: diffFunctions(bs, as, normalize) };
}
