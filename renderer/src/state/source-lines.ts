// Source lines: the selected session's line table asked of the main process and turned into
// the places the flame graph's tooltip shows, and the Source view's file with the time per
// line of the picked function.

import { MAX_SOURCE_METHODS, type SourceFile } from '../../../structs/api/contract.js';
import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import { isLive } from './app-state.js';
import type { StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

// How often a live session's source lines are asked for again (its new frames get lines).
const SOURCES_EVERY_MS = 3000;

export class SourceLines {
  // When the session's source lines were last asked for, and whether it was live then: asked
  // every few seconds while it records (new frames), once more after it stopped.
  // A stopped session is asked again while its bytes still arrive (a replay): the worker puts
  // each function's hottest line from the samples it holds, and a first answer may precede them.
  private asked = { atMs: 0, live: true, bytes: -1 };
  // The function and file the source panel's file was asked for (its text does not change).
  private fileKey: string | null = null;

  /** `generation` says whether an answer still belongs to the feed that asked (session-feed.ts). */
  constructor(private readonly ctx: StationContext, private readonly generation: () => number) {}

  /** Another session is shown: its lines and file are asked for anew. */
  reset(): void {
    this.asked = { atMs: 0, live: true, bytes: -1 };
    this.fileKey = null;
  }

  /** "Goto source": selects the function and shows its source with the time per line. */
  showSource(name: string): void {
    if (name !== this.ctx.store.get().selectedFunction) this.ctx.store.update({ functionLines: null });
    this.ctx.store.update({ selectedFunction: name, tab: 'source' });
    this.ctx.refresher.now();
  }

  /** Asks for the session's line table when it may have changed since the last time (`bytes`: the stream held so far). */
  refresh(generation: number, bytes: number): void {
    const state = this.ctx.store.get();
    const sessionId = state.selectedSessionId;
    if (sessionId === null || typeof this.ctx.api.sourceLines !== 'function') return;
    const live = isLive(state.sessions.find((s) => s.id === sessionId));
    const now = Date.now();
    if (live ? now - this.asked.atMs < SOURCES_EVERY_MS : !this.asked.live && this.asked.bytes === bytes) return;
    this.asked = { atMs: now, live, bytes };
    this.ctx.api.sourceLines(sessionId)
      .then((table) => (table.frameIds.length === 0 || generation !== this.generation() ? null : this.ctx.worker.sources(table)))
      .then((sources) => {
        if (sources === null || generation !== this.generation()) return;
        this.ctx.store.update({ sources });
        // The source panel's figures were computed without these lines: again, with them.
        if (this.ctx.store.get().tab === 'source') this.ctx.refresher.now();
      })
      // Lines are a help, not the view: a failure leaves the names without them.
      .catch(() => undefined);
  }

  /** The file the source panel shows for `lines`, asked of the main process once per function and file. */
  async loadFile(generation: number, lines: FunctionLines): Promise<void> {
    const sessionId = this.ctx.store.get().selectedSessionId;
    const path = lines.file;
    const key = `${lines.name}\u0000${path ?? ''}`;
    if (sessionId === null || this.fileKey === key) return;
    this.fileKey = key;
    this.ctx.store.update({ sourceFile: null });
    if (path === null) return;
    let file: SourceFile;
    try {
      file = await this.ctx.api.sourceFile({ sessionId, path, methods: lines.methods.slice(0, MAX_SOURCE_METHODS) });
    } catch (e) {
      file = { path, text: null, message: userMessage(e, `${path} could not be read.`), spans: [] };
    }
    if (generation === this.generation() && this.fileKey === key) this.ctx.store.update({ sourceFile: file });
  }
}
