// Everything the profile worker does, minus the Worker itself: one session's stream, and the
// answers to queries over it. Kept apart from profile-worker.ts so node tests drive it
// directly with the same messages the UI thread sends.

import type { FlatTree, ParallelQuery, ParallelTree, WorkerReply, WorkerRequest } from './protocol.js';
import { buildAsyncFlameTree, buildFlameTreeIncremental } from './flame-tree.js';
import { AsyncSource } from '../../../structs/analysis/async-source.js';
import { isNoFold } from '../../../structs/analysis/fold-options.js';
import { ProfileAnalysis } from '../../../structs/analysis/profile-analysis.js';
import { isEventMetric } from '../../../structs/profile/event-metrics.js';
import type { FlameQuery } from './protocol.js';
import { StackSums } from './stack-sums.js';
import { TreeReuse } from './tree-reuse.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import { buildParallelTree } from './parallel-stacks.js';
import { buildOperationsTree } from './parallel-operations.js';
import type { FoldOptions } from '../../../structs/analysis/fold-options.js';
import type { FoldedView } from './analysis-core.js';
import { SummaryTracker } from './recording-summary.js';
import { StreamFeed } from './stream-feed.js';
import { AnalysisCore } from './analysis-core.js';
import { stackWeights, type StackWeights } from '../../../structs/analysis/stack-weights.js';
import type { SampleMetric } from '../../../structs/profile/recording.js';
import { KeptWindow, MAX_KEEP_MINUTES } from './kept-window.js';

export interface WorkerOutput {
  reply: WorkerReply;
  /** Buffers to move, not copy, to the UI thread (the tree's typed arrays). */
  transfer: ArrayBuffer[];
}

export class ProfileWorkerCore {
  // With a kept window the recording keeps its samples (a window's cut needs them) and lets the
  // oldest go; without, it keeps the stream's bytes and only the latest chunks' samples (StreamFeed).
  private window: KeptWindow | null = null;
  private feed = new StreamFeed({ recentSamples: true });
  private labels = new LabelTable(this.feed.recording);
  private summary = new SummaryTracker(this.feed.recording);
  private analysis = new AnalysisCore(this.feed.recording, (metric) => this.wholeWeights(metric));
  private sums = new StackSums(this.feed.recording);
  private reuse = new TreeReuse();
  // The async call stacks of the recording, made at the first query that asks for them.
  private async: { source: AsyncSource; labels: LabelTable; analysis: ProfileAnalysis; names: number } | null = null;

  /** The reply to send for `request`, or null when it needs none ('reset', a chunk that decoded). */
  handle(request: WorkerRequest): WorkerOutput | null {
    switch (request.kind) {
      case 'reset': {
        const minutes = request.keepMinutes;
        const valid = minutes === undefined || (Number.isInteger(minutes) && minutes >= 1 && minutes <= MAX_KEEP_MINUTES);
        this.window = minutes === undefined || !valid ? null : new KeptWindow(minutes);
        this.feed = new StreamFeed({ recentSamples: this.window === null });
        this.labels = new LabelTable(this.feed.recording);
        this.analysis = new AnalysisCore(this.feed.recording, (metric) => this.wholeWeights(metric));
        this.rebase();
        // A bug of the page's, not of the stream: the whole recording is kept, and it hears why.
        return valid ? null : this.error(null, `The views can keep 1 to ${MAX_KEEP_MINUTES} whole minutes of a recording, not ${String(minutes)}; they keep all of it.`);
      }
      case 'chunk': {
        if (!(request.bytes instanceof Uint8Array)) return this.error(null, 'A stream chunk arrived without its bytes (a Uint8Array).');
        const failure = this.feed.push(request.offset, request.bytes);
        const rec = this.feed.recording;
        if (this.window !== null) {
          if (this.window.advance(rec)) {
            this.rebase();
            this.analysis.rebase();
          }
        } else if (!rec.keepsSamples) {
          // The recording holds only this chunk's samples: the sums and the summary take them now,
          // then they go (a view that needs every sample has them decoded again: StreamFeed).
          this.sums.update();
          this.summary.catchUp();
          rec.releaseSamples();
        }
        return failure === null ? null : this.error(null, failure);
      }
      case 'flame':
        return this.answer(request.requestId, () => {
          const tree = this.wantsAsync(request.query)
            ? this.asyncTree(request.query)
            : buildFlameTreeIncremental(this.feed.recording, request.query, this.labels, this.analysis.view(request.query.fold), this.sums, this.reuse);
          return { reply: { kind: 'flame', requestId: request.requestId, tree }, transfer: treeBuffers(tree) };
        });
      case 'parallel':
        return this.answer(request.requestId, () => {
          const query = request.query;
          const tree = query.by === 'operations' && this.feed.recording.hasAsync
            ? this.operationsTree(query)
            : buildParallelTree(this.feed.recording, query, this.labels, this.analysis.view(query.fold), this.sums);
          return { reply: { kind: 'parallel', requestId: request.requestId, tree }, transfer: treeBuffers(tree) };
        });
      case 'summary':
        return this.answer(request.requestId, () => ({
          reply: { kind: 'summary', requestId: request.requestId, summary: this.summary.summarize(this.feed.error) },
          transfer: [],
        }));
      case 'functions':
      case 'sandwich':
      case 'diff':
      case 'timeline':
      case 'stack-near':
      case 'baseline-summary':
      case 'lines':
      case 'function-lines':
      case 'event-tables':
      case 'recording-view':
      case 'request-timeline':
        return this.answer(request.requestId, () => this.analysis.handle(request) as WorkerOutput);
      case 'baseline-reset':
      case 'baseline-chunk':
        return this.analysis.handle(request);
      default: {
        const unknown: { kind?: unknown; requestId?: unknown } = request;
        const requestId = typeof unknown.requestId === 'number' ? unknown.requestId : null;
        return this.error(requestId, `The profile worker does not know the request kind ${JSON.stringify(unknown.kind)}.`);
      }
    }
  }

  /** The whole recording's weights of CPU or wall time from the running sums (copies: the sums keep growing). */
  private wholeWeights(metric: SampleMetric): StackWeights | undefined {
    if (metric === 'samples') return undefined;
    const t = this.sums.totals(metric);
    return stackWeights(t.stack.slice(), t.samples.slice());
  }

  /** Readers of the samples start over: a new recording, or one that let its oldest samples go. */
  private rebase(): void {
    this.summary = new SummaryTracker(this.feed.recording, this.window?.minutes ?? null);
    this.sums = new StackSums(this.feed.recording);
    this.reuse = new TreeReuse();
    this.async = null;
  }

  private wantsAsync(query: FlameQuery): boolean {
    return query.asyncStacks === true && this.feed.recording.hasAsync && !isEventMetric(query.metric);
  }

  private asyncParts(): { source: AsyncSource; labels: LabelTable; analysis: ProfileAnalysis } {
    const source = this.async?.source ?? new AsyncSource(this.feed.recording);
    // Made again when an [await] frame learned its type: labels, and what was folded by them.
    if (this.async === null || this.async.names !== source.nameGeneration) {
      this.async = { source, labels: new LabelTable(source), analysis: new ProfileAnalysis(source), names: source.nameGeneration };
    }
    return this.async;
  }

  /** The async call stacks folded as asked, or null for no folding. */
  private asyncView(fold: FoldOptions | undefined): FoldedView | null {
    const { analysis } = this.asyncParts();
    const stacks = fold === undefined || isNoFold(fold) ? null : analysis.folded(fold);
    return stacks === null ? null : { stacks, labels: analysis.labelsOf(stacks) };
  }

  private asyncTree(query: FlameQuery): FlatTree {
    const { source, labels } = this.asyncParts();
    return buildAsyncFlameTree(source, query, labels, this.asyncView(query.fold));
  }

  private operationsTree(query: ParallelQuery): ParallelTree {
    const { source, labels } = this.asyncParts();
    return buildOperationsTree(this.feed.recording, source, query, labels, this.asyncView(query.fold));
  }

  private answer(requestId: number, build: () => WorkerOutput): WorkerOutput {
    try {
      return build();
    } catch (err) {
      // A bug of ours, not of the stream: say so in one sentence rather than leave the view waiting.
      return this.error(requestId, `The profile worker failed to answer: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private error(requestId: number | null, message: string): WorkerOutput {
    return { reply: { kind: 'error', requestId, message }, transfer: [] };
  }
}

function treeBuffers(tree: FlatTree): ArrayBuffer[] {
  const arrays = [tree.label, tree.parent, tree.depth, tree.total, tree.self, tree.labelKind];
  const buffers: ArrayBuffer[] = [];
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer && !buffers.includes(a.buffer)) buffers.push(a.buffer);
  return buffers;
}
