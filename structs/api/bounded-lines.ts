// A session's output lines within OUTPUT_LIMITS, the oldest dropped first. The main process keeps
// one per launched session and a page one per session it heard of: both sides bound the same
// way, so a page never holds more of a program's output than the workstation does.

import { OUTPUT_LIMITS, type OutputLine } from './contract.js';

export interface LineLimits {
  lines: number;
  bytes: number;
}

/** The length of `text` in UTF-8, counted without encoding it (this runs for every line a program writes). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export class BoundedLines {
  // Dropping from the front of an array is O(n) a line; an index into it is not. The dropped
  // head is cut off now and then, so the array stays within twice the limit.
  private lines: OutputLine[] = [];
  private start = 0;
  private bytes = 0;
  private droppedCount = 0;

  constructor(private readonly limits: LineLimits = OUTPUT_LIMITS) {
    if (!Number.isInteger(limits.lines) || limits.lines < 1 || !(limits.bytes > 0)) {
      throw new RangeError(`Output limits must keep at least one line and one byte, not ${limits.lines} lines and ${limits.bytes} bytes.`);
    }
  }

  get length(): number {
    return this.lines.length - this.start;
  }

  /** The lines this container dropped to stay within its limits. */
  get dropped(): number {
    return this.droppedCount;
  }

  get first(): OutputLine | undefined {
    return this.length === 0 ? undefined : this.lines[this.start];
  }

  get last(): OutputLine | undefined {
    return this.length === 0 ? undefined : this.lines[this.lines.length - 1];
  }

  /** Appends a line whose seq is above the last one's (false, and nothing kept, otherwise). */
  push(line: OutputLine): boolean {
    const last = this.last;
    if (last !== undefined && line.seq <= last.seq) return false;
    this.lines.push(line);
    this.bytes += utf8Length(line.text);
    // The newest line stays even when it alone is over the byte limit: it is what the program just said.
    while (this.length > this.limits.lines || (this.bytes > this.limits.bytes && this.length > 1)) {
      this.bytes -= utf8Length(this.lines[this.start].text);
      this.start++;
      this.droppedCount++;
    }
    if (this.start > this.limits.lines) {
      this.lines = this.lines.slice(this.start);
      this.start = 0;
    }
    return true;
  }

  /** The kept lines, oldest first (a new array; the lines themselves are shared). */
  all(): OutputLine[] {
    return this.lines.slice(this.start);
  }
}
