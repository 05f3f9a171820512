// One refresh of the visible view: the summary and the tree or table of the shown tab asked
// of the worker together, dropped if the session changed meanwhile. RefreshScheduler decides
// when; this decides what.

import type { AppState } from './app-state.js';
import { analysisQuery, baselineSide } from './analysis-queries.js';
import type { DiffBaseline } from './diff-baseline.js';
import type { SessionFeed } from './session-feed.js';
import type { SourceLines } from './source-lines.js';
import type { StationContext } from './station-context.js';
import { tabRecordingView } from './tabs.js';
import { userMessage } from './user-message.js';
import { eventTableQuery, flameAnswerKey, flameQuery, parallelQuery } from './view-queries.js';
import type { ViewOptions } from './view-options.js';

export interface RefreshRooms {
  feed: SessionFeed;
  view: ViewOptions;
  diff: DiffBaseline;
  sources: SourceLines;
}

export class ViewRefresh {
  // The recording's error the user was last shown, so each refresh does not show it again.
  private shownSummaryError: string | null = null;

  constructor(private readonly ctx: StationContext, private readonly rooms: RefreshRooms) {}

  /** Another session is shown: its error is news again. */
  reset(): void {
    this.shownSummaryError = null;
  }

  async run(): Promise<void> {
    const { ctx } = this;
    const { feed, view, diff: baseline, sources } = this.rooms;
    const state = ctx.store.get();
    if (state.selectedSessionId === null || ctx.worker.failed !== null) return;
    const generation = feed.generation;
    const { tab, flameOptions, parallelMode, parallelBy, summary: lastSummary } = state;
    try {
      // The summary is cheap and the worker answers in order: show it without waiting for the tree.
      const summaryP = ctx.worker.summary().then((summary) => {
        if (generation !== feed.generation) return;
        ctx.store.update({ summary });
        if (summary.error !== null && summary.error !== this.shownSummaryError) {
          this.shownSummaryError = summary.error;
          ctx.showError(summary.error);
        }
      });
      if (tab === 'flame' || tab === 'functions' || tab === 'source') sources.refresh(generation, feed.position);
      const { fold, selectedFunction, diffOptions } = state;
      const flameP = tab === 'flame' ? ctx.worker.flame({ ...flameQuery(flameOptions, lastSummary), fold }) : null;
      const parallelP = tab === 'parallel' ? ctx.worker.parallel({ ...parallelQuery(parallelMode, flameOptions.window, lastSummary, flameOptions.processIds), by: parallelBy, fold }) : null;
      const query = analysisQuery(flameOptions, fold, lastSummary);
      const functionsP = tab === 'functions' ? ctx.worker.functions(query) : null;
      const eventTablesP = tab === 'types' || tab === 'exceptions' ? ctx.worker.eventTables(eventTableQuery(flameOptions, lastSummary)) : null;
      const viewId = tabRecordingView(tab);
      const recordingViewP = viewId === null ? null : ctx.worker.recordingView(viewId);
      const sandwichP = tab === 'functions' && selectedFunction !== null ? ctx.worker.sandwich(query, selectedFunction) : null;
      const linesP = tab === 'source' && selectedFunction !== null ? ctx.worker.functionLines(query, selectedFunction) : null;
      const timelineP = tab === 'timeline' ? ctx.worker.timeline({ buckets: view.timelineBuckets }) : null;
      const diffP = tab === 'diff' && diffOptions.baseline !== null && baseline.ready
        ? ctx.worker.diff(baselineSide(diffOptions.baseline, query), { source: 'current', query }, diffOptions.normalize)
        : null;
      const baselineP = tab === 'diff' && diffOptions.baseline?.kind === 'session' ? ctx.worker.baselineSummary() : null;
      const [, flame, parallel, functions, sandwich, timeline, diff, baselineSummary, functionLines, eventTables] = await Promise.all([
        summaryP, flameP, parallelP, functionsP, sandwichP, timelineP, diffP, baselineP, linesP, eventTablesP,
      ]);
      const recordingView = await recordingViewP;
      if (generation !== feed.generation) return;
      const patch: Partial<AppState> = {};
      if (functions !== null) patch.functions = functions;
      if (eventTables !== null) patch.eventTables = eventTables;
      if (viewId !== null && recordingView !== null) patch.recordingViews = { ...ctx.store.get().recordingViews, [viewId]: recordingView };
      if (tab === 'functions') patch.sandwich = sandwich;
      if (timeline !== null) patch.timeline = timeline;
      if (diff !== null) patch.diff = diff;
      if (baselineSummary !== null) patch.baselineSummary = baselineSummary;
      if (flame !== null) {
        patch.flame = flame;
        patch.flameShape = {
          inverted: flameOptions.inverted, groupByThread: flameOptions.groupByThread, groupByProcess: flameOptions.groupByProcess, answers: flameAnswerKey(flameOptions, fold),
        };
      }
      if (parallel !== null) patch.parallel = parallel;
      if (tab === 'source') patch.functionLines = functionLines;
      ctx.store.update(patch);
      if (functionLines !== null) void sources.loadFile(generation, functionLines);
    } catch (e) {
      if (generation === feed.generation) ctx.showError(userMessage(e, 'The profile worker could not answer.'));
    }
  }

  /** The Requests tab's timeline of one request. */
  async showRequestTimeline(index: number): Promise<void> {
    const generation = this.rooms.feed.generation;
    try {
      const timeline = await this.ctx.worker.requestTimeline(index);
      if (generation === this.rooms.feed.generation) this.ctx.store.update({ requestTimeline: timeline });
    } catch (e) {
      if (generation === this.rooms.feed.generation) this.ctx.showError(userMessage(e, 'The profile worker could not answer.'));
    }
  }

  /** The stack of a thread at a moment of the timeline (ms from the recording's start). */
  async showStackAt(threadId: number, atMs: number): Promise<void> {
    const generation = this.rooms.feed.generation;
    try {
      const stack = await this.ctx.worker.stackNear(threadId, atMs, this.ctx.store.get().fold);
      if (generation === this.rooms.feed.generation) this.ctx.store.update({ timelineStack: stack });
    } catch (e) {
      if (generation === this.rooms.feed.generation) this.ctx.showError(userMessage(e, 'The profile worker could not answer.'));
    }
  }
}
