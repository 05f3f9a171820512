// Launched programs' output per session, kept outside the immutable app state like the
// counters: lines arrive many times a second, and copying a long list on each would cost more
// than showing it. Lines heard live and the history asked for when a session is shown are
// merged by seq; both are bounded by OUTPUT_LIMITS, as the main process bounds its own.

import { BoundedLines, type LineLimits } from '../../../structs/api/bounded-lines.js';
import { OUTPUT_LIMITS, type OutputHistory, type OutputLine, type OutputPartial } from '../../../structs/api/contract.js';

/** What the Output view shows of one session. */
export interface SessionOutput {
  lines: readonly OutputLine[];
  /** Each stream's unfinished last line, shown after the lines. */
  partial: OutputPartial;
  /** Lines before the first one shown that neither the page nor the workstation keeps; 0 until the history came. */
  droppedLines: number;
  /** The session's history has been merged in: an empty list now means the program said nothing. */
  loaded: boolean;
}

interface Entry {
  lines: BoundedLines;
  partial: OutputPartial;
  loaded: boolean;
  /** What the history said was dropped, for when no line is held to say it. */
  historyDropped: number;
}

const NOTHING: OutputPartial = Object.freeze({ stdout: '', stderr: '' });

export class ProgramOutput {
  private readonly bySession = new Map<string, Entry>();

  constructor(private readonly limits: LineLimits = OUTPUT_LIMITS) {}

  /** Lines heard live: those not held yet are appended (an event heard twice adds nothing). */
  add(sessionId: string, lines: readonly OutputLine[], partial: OutputPartial): void {
    const entry = this.entry(sessionId);
    for (const line of lines) entry.lines.push(line);
    entry.partial = partial;
  }

  /**
   * Merges a session's history with the lines heard live while it was asked for: each seq once,
   * in order, the newest kept within the limits.
   */
  merge(sessionId: string, history: OutputHistory): void {
    const entry = this.entry(sessionId);
    const bySeq = new Map<number, OutputLine>();
    for (const line of history.lines) bySeq.set(line.seq, line);
    for (const line of entry.lines.all()) bySeq.set(line.seq, line);
    const merged = new BoundedLines(this.limits);
    for (const line of [...bySeq.values()].sort((a, b) => a.seq - b.seq)) merged.push(line);
    // The history was read after every event heard before its answer, so its unfinished lines
    // are the newer, unless a live line past its end came first (replies and events that
    // travel out of order).
    const newestLive = entry.lines.last?.seq ?? -1;
    const newestHistory = history.lines.length === 0 ? -1 : history.lines[history.lines.length - 1].seq;
    const partial = newestLive > newestHistory ? entry.partial : history.partial;
    this.bySession.set(sessionId, { lines: merged, partial, loaded: true, historyDropped: history.droppedLines });
  }

  /** A closed session's lines go. */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  get(sessionId: string | null): SessionOutput {
    const entry = sessionId === null ? undefined : this.bySession.get(sessionId);
    if (entry === undefined) return { lines: [], partial: NOTHING, droppedLines: 0, loaded: false };
    // Lines are numbered from 0, so the first one held says how many came before it.
    const droppedLines = entry.loaded ? (entry.lines.first?.seq ?? entry.historyDropped) : 0;
    return { lines: entry.lines.all(), partial: entry.partial, droppedLines, loaded: entry.loaded };
  }

  private entry(sessionId: string): Entry {
    let entry = this.bySession.get(sessionId);
    if (entry === undefined) {
      entry = { lines: new BoundedLines(this.limits), partial: NOTHING, loaded: false, historyDropped: 0 };
      this.bySession.set(sessionId, entry);
    }
    return entry;
  }
}
