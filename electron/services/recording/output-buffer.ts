// A launched program's stdout and stderr as numbered lines, kept so that a page which shows the
// session later (or reloads) gets what the program said before it looked.
//
// Bounded (OUTPUT_LIMITS: the newest 2,000 lines within 256 KiB, counting what was dropped): a
// chatty program runs for hours and the workstation must not grow its memory with it. An
// unfinished line is bounded too: past OUTPUT_LIMITS.lineChars characters it is cut into a line.

import { BoundedLines } from '../../../structs/api/bounded-lines.js';
import { OUTPUT_LIMITS, type OutputHistory, type OutputLine, type OutputPartial, type OutputStream } from '../../../structs/api/contract.js';

/** What sessions that launched nothing (attached, opened from a file) hold. */
export function noOutput(): OutputHistory {
  return { lines: [], droppedLines: 0, partial: { stdout: '', stderr: '' } };
}

export class OutputBuffer {
  private readonly kept: BoundedLines;
  private nextSeq = 0;
  private readonly unfinished: OutputPartial = { stdout: '', stderr: '' };

  constructor(private readonly limits: { lines: number; bytes: number; lineChars: number } = OUTPUT_LIMITS) {
    this.kept = new BoundedLines(limits);
  }

  /** Each stream's unfinished last line. */
  get partial(): OutputPartial {
    return { ...this.unfinished };
  }

  /** Text one stream wrote (decoded, any size): the lines it completed, numbered and kept. */
  write(stream: OutputStream, text: string): OutputLine[] {
    const done: OutputLine[] = [];
    const all = this.unfinished[stream] + text;
    let start = 0;
    for (;;) {
      const newline = all.indexOf('\n', start);
      const end = newline < 0 ? all.length : newline;
      while (end - start > this.limits.lineChars) {
        const cut = cutAt(all, start, start + this.limits.lineChars);
        done.push(this.complete(stream, all.slice(start, cut)));
        start = cut;
      }
      if (newline < 0) break;
      // Windows programs end lines with CRLF; the CR is no part of the line.
      const line = all.slice(start, newline > start && all[newline - 1] === '\r' ? newline - 1 : newline);
      done.push(this.complete(stream, line));
      start = newline + 1;
    }
    this.unfinished[stream] = all.slice(start);
    return done;
  }

  /** The stream closed: its unfinished line, if any, becomes a line. */
  end(stream: OutputStream): OutputLine[] {
    const rest = this.unfinished[stream];
    if (rest === '') return [];
    this.unfinished[stream] = '';
    return [this.complete(stream, rest.endsWith('\r') ? rest.slice(0, -1) : rest)];
  }

  history(): OutputHistory {
    return { lines: this.kept.all(), droppedLines: this.kept.dropped, partial: this.partial };
  }

  private complete(stream: OutputStream, text: string): OutputLine {
    // Frozen: the same object goes to every listener and stays in the history.
    const line = Object.freeze({ seq: this.nextSeq++, stream, text });
    this.kept.push(line);
    return line;
  }
}

/** Where to cut a long line at or before `at`, not between the halves of a surrogate pair (unless that leaves nothing after `start`). */
function cutAt(text: string, start: number, at: number): number {
  const c = text.charCodeAt(at - 1);
  return c >= 0xd800 && c <= 0xdbff && at - 1 > start ? at - 1 : at;
}
