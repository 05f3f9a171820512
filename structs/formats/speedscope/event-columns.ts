// An evented speedscope profile's events as read once, 13 bytes an event in typed columns, so
// the text is not parsed again to build (a template object per event was seconds of garbage
// collection for millions of them).

/** An evented profile's events as read once: opens and closes, frame indexes, times. */
export class EventColumns {
  count = 0;
  opens = new Uint8Array(1024);
  frames = new Int32Array(1024);
  at = new Float64Array(1024);

  push(open: boolean, frame: number, at: number): void {
    if (this.count === this.opens.length) {
      const size = this.count * 2;
      const opens = new Uint8Array(size); opens.set(this.opens); this.opens = opens;
      const frames = new Int32Array(size); frames.set(this.frames); this.frames = frames;
      const times = new Float64Array(size); times.set(this.at); this.at = times;
    }
    this.opens[this.count] = open ? 1 : 0;
    this.frames[this.count] = frame;
    this.at[this.count] = at;
    this.count++;
  }
}
