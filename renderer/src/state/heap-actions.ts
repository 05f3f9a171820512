// The Heap tab's room: the workstation's heap snapshots (taken of the selected session's process
// or opened from files), the one shown and the one it is compared with, and what the tab asks of
// them: the types table, the paths from roots to a picked type, the dominator tree's children.
// Snapshots live in the main process, each analysed in a worker thread there; this room only
// asks and keeps the answers (electron/services/heap/heap-snapshots.ts).

import type { HeapSnapshotInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import type { HeapTypesColumn, HeapViewState, TableSort } from './app-state.js';
import { newJobId, selectedSession, sentence, type StationContext } from './station-context.js';

/** Children the dominator tree asks for per object: the most retaining ones. */
export const TREE_CHILDREN = 100;

export class HeapActions {
  // Answers to an older question (another snapshot, baseline or type) are dropped.
  private asked = 0;
  // The take whose cancel was asked: its rejection is what the user wanted, not an error.
  private cancelled: string | null = null;

  constructor(private readonly ctx: StationContext) {}

  private get heap(): HeapViewState {
    return this.ctx.store.get().heap;
  }

  private update(part: Partial<HeapViewState>): void {
    this.ctx.store.update({ heap: { ...this.heap, ...part } });
  }

  /** The snapshots the workstation already holds (another page may have taken some). */
  async load(): Promise<void> {
    try {
      const snapshots = await this.ctx.api.listHeapSnapshots();
      this.update({ snapshots });
      if (this.heap.snapshotId === null && snapshots.length > 0) this.show(snapshots[snapshots.length - 1].id);
    } catch (err) {
      this.ctx.showError(sentence((err as Error).message));
    }
  }

  /** Takes a snapshot of the selected session's process and shows it, compared with the one shown before. */
  async take(): Promise<void> {
    const session = selectedSession(this.ctx.store.get());
    if (session === undefined) return;
    const jobId = newJobId('heap');
    this.update({ jobId });
    await this.add(() => this.ctx.api.takeHeapSnapshot({ sessionId: session.id, jobId }));
  }

  /** Calls off the snapshot being taken: the snapshots shown stay as they were, and no error is said. */
  async cancelTake(): Promise<void> {
    const jobId = this.heap.jobId;
    if (jobId === null) return;
    this.cancelled = jobId;
    try {
      await this.ctx.api.cancelJob(jobId);
    } catch (err) {
      this.ctx.showError(sentence((err as Error).message));
    }
  }

  /** Opens a .gcdump, .clrheap or .clrscope file's snapshot and shows it. */
  async open(path: string): Promise<void> {
    await this.add(() => this.ctx.api.openHeapSnapshot({ path }));
  }

  private async add(get: () => Promise<HeapSnapshotInfo>): Promise<void> {
    const previous = this.heap.snapshotId;
    this.update({ busy: true, progress: null });
    try {
      const info = await get();
      this.noteSnapshot(info);
      this.show(info.id, previous);
    } catch (err) {
      if (this.cancelled === null || this.cancelled !== this.heap.jobId) this.ctx.showError(sentence((err as Error).message));
    } finally {
      this.cancelled = null;
      this.update({ busy: false, progress: null, jobId: null });
    }
  }

  async save(path: string): Promise<void> {
    const id = this.heap.snapshotId;
    if (id === null) return;
    try {
      await this.ctx.api.saveHeapSnapshot({ snapshotId: id, path });
    } catch (err) {
      this.ctx.showError(sentence((err as Error).message));
    }
  }

  /** Shows a snapshot (compared with `baselineId`, if any): its types and the roots' level of its dominator tree. */
  show(snapshotId: string, baselineId: string | null = null): void {
    this.update({ snapshotId, baselineId: baselineId === snapshotId ? null : baselineId, types: null, selectedType: null, paths: null, tree: {}, expanded: [] });
    void this.loadTypes();
    void this.loadChildren(-1);
  }

  setBaseline(baselineId: string | null): void {
    const { snapshotId } = this.heap;
    if (snapshotId === null) return;
    this.update({ baselineId: baselineId === snapshotId ? null : baselineId, types: null, paths: null });
    void this.loadTypes();
    void this.loadPaths();
  }

  setFilter(filter: string): void {
    this.update({ filter });
  }

  setSort(sort: TableSort<HeapTypesColumn>): void {
    this.update({ sort });
  }

  /** Picks a type: the paths from roots to its objects are asked for. */
  selectType(type: string | null): void {
    this.update({ selectedType: type, paths: null });
    void this.loadPaths();
  }

  /** Opens or closes an object of the dominator tree (its children are asked for once). */
  toggle(node: number): void {
    const { expanded, tree } = this.heap;
    if (expanded.includes(node)) {
      this.update({ expanded: expanded.filter((n) => n !== node) });
      return;
    }
    this.update({ expanded: [...expanded, node] });
    if (tree[node] === undefined) void this.loadChildren(node);
  }

  private async loadTypes(): Promise<void> {
    const { snapshotId, baselineId } = this.heap;
    if (snapshotId === null) return;
    const ticket = ++this.asked;
    try {
      const types = await this.ctx.api.heapTypes({ snapshotId, ...(baselineId !== null ? { baselineId } : {}) });
      if (ticket === this.asked) this.update({ types });
    } catch (err) {
      if (ticket === this.asked) this.ctx.showError(sentence((err as Error).message));
    }
  }

  private async loadPaths(): Promise<void> {
    const { snapshotId, baselineId, selectedType } = this.heap;
    if (snapshotId === null || selectedType === null) return;
    try {
      const paths = await this.ctx.api.heapPaths({ snapshotId, type: selectedType, ...(baselineId !== null ? { baselineId } : {}) });
      const now = this.heap;
      if (now.snapshotId === snapshotId && now.baselineId === baselineId && now.selectedType === selectedType) this.update({ paths });
    } catch (err) {
      this.ctx.showError(sentence((err as Error).message));
    }
  }

  private async loadChildren(node: number): Promise<void> {
    const { snapshotId } = this.heap;
    if (snapshotId === null) return;
    try {
      const children = await this.ctx.api.heapDominators({ snapshotId, node, limit: TREE_CHILDREN });
      if (this.heap.snapshotId === snapshotId) this.update({ tree: { ...this.heap.tree, [node]: children } });
    } catch (err) {
      this.ctx.showError(sentence((err as Error).message));
    }
  }

  private noteSnapshot(info: HeapSnapshotInfo): void {
    const snapshots = this.heap.snapshots.filter((s) => s.id !== info.id);
    this.update({ snapshots: [...snapshots, info] });
  }

  onEvent(event: Extract<WorkstationEvent, { type: 'heap-progress' | 'heap-snapshot' }>): void {
    if (event.type === 'heap-progress') {
      this.update({ progress: { label: event.label, phase: event.phase, done: event.done, total: event.total } });
      return;
    }
    if (event.closed !== true) {
      this.noteSnapshot(event.snapshot);
      return;
    }
    const gone = event.snapshot.id;
    const { snapshotId, baselineId } = this.heap;
    this.update({ snapshots: this.heap.snapshots.filter((s) => s.id !== gone) });
    if (snapshotId === gone) this.update({ snapshotId: null, baselineId: null, types: null, paths: null, selectedType: null, tree: {}, expanded: [] });
    else if (baselineId === gone) this.setBaseline(null);
  }
}
