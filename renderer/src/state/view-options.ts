// What the user picks about how the selected recording is shown: the tab, the flame graph's
// options and zoom, the folding (saved for the next run), the parallel stacks' mode, the
// picked function and the timeline's width. Each change re-queries the visible view now,
// unless the tree it shows stays the same.

import { foldKey, type FoldOptions } from '../../../structs/analysis/fold-options.js';
import { isEventMetric, type EventMetric } from '../../../structs/profile/event-metrics.js';
import type { ZoomPath } from '../canvas/flame-zoom.js';
import type { FlameOptions, ParallelBy, ParallelMode, Tab } from './app-state.js';
import type { StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

export class ViewOptions {
  private timelineBucketsValue = 800;

  constructor(private readonly ctx: StationContext) {}

  /** Columns the timeline is drawn in (its canvas's width): one bucket per pixel. */
  get timelineBuckets(): number {
    return this.timelineBucketsValue;
  }

  setTab(tab: Tab): void {
    this.ctx.store.update({ tab });
    this.ctx.refresher.now();
  }

  setFlameOptions(patch: Partial<FlameOptions>): void {
    const before = this.ctx.store.get().flameOptions;
    const next = { ...before, ...patch };
    // A type picked in the type or exceptions table belongs to its event type.
    if (patch.metric !== undefined && patch.metric !== before.metric && patch.eventType === undefined) next.eventType = null;
    // Flipping or regrouping the tree changes every frame's path: a zoom would land somewhere arbitrary.
    const reshaped = next.inverted !== before.inverted || next.groupByThread !== before.groupByThread || next.groupByProcess !== before.groupByProcess
      || next.asyncStacks !== before.asyncStacks;
    this.ctx.store.update({ flameOptions: next, ...(reshaped ? { flameZoom: [] } : {}) });
    // The search is the renderer's business: the tree stays the same.
    if (Object.keys(patch).some((k) => k !== 'search')) this.ctx.refresher.now();
  }

  /** The flame graph's zoom (a click, the reset button); the flame view's renderer follows it. */
  setFlameZoom(flameZoom: ZoomPath): void {
    this.ctx.store.update({ flameZoom });
  }

  /** The folding of every view; saved for the next run. */
  setFold(fold: FoldOptions): void {
    if (foldKey(fold) === foldKey(this.ctx.store.get().fold)) return;
    // Folding changes every frame's path: a zoom would land somewhere arbitrary.
    this.ctx.store.update({ fold, flameZoom: [] });
    this.ctx.refresher.now();
    this.ctx.api.saveSettings({ fold }).catch((e: unknown) => this.ctx.showError(userMessage(e, 'The folding could not be saved for the next run.')));
  }

  /** The folding saved by an earlier run. */
  async loadSettings(): Promise<void> {
    try {
      const settings = await this.ctx.api.loadSettings();
      this.ctx.store.update({ fold: settings.fold });
      this.ctx.refresher.now();
    } catch {
      // The defaults serve; the views work without saved settings.
    }
  }

  /** Picks a function (by its frame name) for the sandwich and the flame graph's highlight; null clears. */
  selectFunction(name: string | null): void {
    this.ctx.store.update({ selectedFunction: name, ...(name === null ? { sandwich: null } : {}) });
    this.ctx.refresher.now();
  }

  /**
   * Focuses the flame graph on one type of an event kind (a row of the type or exceptions
   * table): `metric` unless an event type of the same kind is shown already (allocated
   * objects, live heap stay); null clears the focus.
   */
  focusEventType(metric: EventMetric, type: string | null, keepIf: readonly EventMetric[] = []): void {
    const current = this.ctx.store.get().flameOptions.metric;
    const shown = isEventMetric(current) && keepIf.includes(current) ? current : metric;
    this.setFlameOptions({ metric: shown, eventType: type });
  }

  /** A range picked on the GC timeline becomes the flame graph's window. */
  setRange(fromMs: number, toMs: number): void {
    const lo = Math.max(0, Math.min(fromMs, toMs));
    const hi = Math.max(fromMs, toMs);
    this.setFlameOptions({ window: { kind: 'range', fromMs: lo, toMs: hi } });
  }

  setParallelMode(parallelMode: ParallelMode): void {
    this.ctx.store.update({ parallelMode });
    this.ctx.refresher.now();
  }

  setParallelBy(parallelBy: ParallelBy): void {
    this.ctx.store.update({ parallelBy, parallel: null });
    this.ctx.refresher.now();
  }

  /** The timeline's width in pixels changed: one bucket per pixel. */
  setTimelineBuckets(buckets: number): void {
    const b = Math.max(1, Math.min(4096, Math.round(buckets)));
    if (b === this.timelineBucketsValue) return;
    this.timelineBucketsValue = b;
    this.ctx.refresher.now();
  }
}
