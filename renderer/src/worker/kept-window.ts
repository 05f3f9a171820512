// A session told to keep only its last N minutes in the views (issue 11, "bounded live
// windows"): as data arrives, the recording lets go of the samples, events and pauses older than
// N minutes before the newest, so the worker's memory is bounded by N minutes of data however
// long the session runs. The spool file in the main process keeps everything: saves and exports
// read it, not the worker.
//
// The window runs a tenth past N minutes before its oldest part goes: a cut makes every reader
// of the samples (the sums, the summary, the analysis) start over from the window, so cutting
// after every chunk would rebuild the sums of N minutes a few times a second. Each sample is thus
// summed about ten times over its stay, and the views always show between N and 1.1 N minutes.

import { MAX_KEEP_MINUTES } from '../../../structs/api/contract.js';
import type { Recording } from '../../../structs/profile/recording.js';

export { MAX_KEEP_MINUTES };

const NS_PER_MINUTE = 60e9;
const STEP_FRACTION = 0.1;
// Sample slots kept past the window's own after a cut, so a step's samples fit without the
// columns doubling (which could leave half of them unused for the rest of the session).
const SLOT_SLACK = 1.15;

export class KeptWindow {
  readonly minutes: number;
  private readonly spanNs: number;
  private readonly stepNs: number;
  private newest = -Infinity;
  private samplesSeen = 0;
  private eventsSeen = 0;

  constructor(minutes: number) {
    if (!(Number.isInteger(minutes) && minutes >= 1 && minutes <= MAX_KEEP_MINUTES)) throw new RangeError(`A kept window is 1 to ${MAX_KEEP_MINUTES} whole minutes, not ${minutes}.`);
    this.minutes = minutes;
    this.spanNs = minutes * NS_PER_MINUTE;
    this.stepNs = this.spanNs * STEP_FRACTION;
  }

  /**
   * Lets go of what fell out of the window after new data arrived (a recording that keeps every
   * sample). True when something went: sample indexes changed, so its readers start over.
   */
  advance(rec: Recording): boolean {
    const meta = rec.meta;
    if (meta === undefined) return false;
    const { mono } = rec.sampleColumns();
    let newest = this.newest;
    for (let i = this.samplesSeen; i < mono.length; i++) if (mono[i] > newest) newest = mono[i];
    this.samplesSeen = mono.length;
    const events = rec.events().mono;
    for (let i = this.eventsSeen; i < events.length; i++) if (events[i] > newest) newest = events[i];
    this.eventsSeen = events.length;
    this.newest = newest;
    const cut = newest - this.spanNs;
    if (!(cut >= Math.max(rec.keptFromMono, meta.startMono) + this.stepNs)) {
      this.reserve(rec, newest - meta.startMono);
      return false;
    }
    rec.dropBefore(cut);
    const kept = rec.sampleCount;
    const slots = Math.ceil(kept * (1 + STEP_FRACTION) * SLOT_SLACK) + 1024;
    const capacity = rec.sampleCapacity;
    if (capacity < slots || capacity > slots * 1.5) rec.resizeSamples(slots);
    this.samplesSeen = kept;
    this.eventsSeen = rec.eventCount;
    return true;
  }

  /**
   * Before the first cut, grows nearly full columns to what the window will hold at the rate
   * seen so far rather than letting them double: a doubling just before the first cut would
   * leave up to twice the window's slots allocated, and the cut would copy them once more.
   */
  private reserve(rec: Recording, spannedNs: number): void {
    const capacity = rec.sampleCapacity;
    const held = rec.sampleCount;
    // A rate read off less than a step of data (a burst at the start) is no guide: doubling serves.
    if (rec.keptFromMono !== -Infinity || held < capacity * 0.9 || !(spannedNs >= this.stepNs)) return;
    const expected = Math.ceil((held / spannedNs) * (this.spanNs + this.stepNs) * SLOT_SLACK) + 1024;
    rec.resizeSamples(Math.min(capacity * 4, Math.max(expected, Math.ceil(capacity * 1.25))));
  }
}
