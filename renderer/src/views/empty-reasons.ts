// What an empty view says: why it is empty and what would fill it, in one sentence each, so a
// blank table never leaves the user guessing whether the program, the filters or clrscope is
// at fault.

/** A table that the search box emptied. */
export function noMatch(what: string, search: string, all: number): string {
  return `No ${what} matches "${search.trim()}": clear the search box to see all ${all.toLocaleString()}.`;
}

/** A flame graph, table or timeline with no samples in the current selection. */
export function noSamples(sampleCount: number | undefined, live: boolean): string {
  if (sampleCount === undefined) return 'Waiting for the recording\'s first data…';
  if (sampleCount === 0) {
    return live
      ? 'No samples yet: they come once the program\'s runtime has started and runs code.'
      : 'This recording has no stack samples (a trace of events or counters only): the event views, GC pauses and Counters may still have data.';
  }
  return 'No samples in this selection: the time window or the thread and process filters leave none; pick "Whole recording" and every thread to see them all.';
}

/** The GC view of a recording without pauses. */
export function noPauses(live: boolean): string {
  return live
    ? 'No GC pauses yet: they appear when the program\'s runtime collects garbage (an idle or small program may not for a long time).'
    : 'No GC pauses or runtime suspensions in this recording: the program did not collect garbage while recorded, or the file\'s format keeps no pauses (speedscope, pprof and collapsed stacks do not).';
}
