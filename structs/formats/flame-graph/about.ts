// The two shared flame graphs, described: flame.html (interactive, one file, async-profiler's
// kind) and flame.svg (flamegraph.pl's). Written only; their writers are in format.ts.

import type { FormatDescription } from '../recording-format.js';

export const flameHtmlAbout = {
  id: 'flame-html',
  name: 'HTML flame graph',
  label: 'HTML flame graph',
  read: [],
  write: ['.html', '.htm'],
  exportRank: 7,
  help: { write: 'one self-contained page with an interactive flame graph per metric (CPU, wall, each event type): zoom, search, no network' },
  note: 'One page to share: a flame graph of CPU, wall and each event type with zoom and search, opened from disk by any browser with no network. Frames under 0.02% of the whole are left out, so its size follows what can be seen, not the recording\'s length: an hour of 10 threads sampled every 10 ms (3.6 M samples, 5,000 distinct stacks) makes 1.0 MB, as its first minute does.',
  openHint: (path: string) => `Open it in a browser: file://${path}`,
  keeps: 'the HTML flame graph keeps the merged stacks of each metric, frames of 0.02% and up: no threads, sample times, GC pauses or counters',
} as const satisfies FormatDescription;

export const flameSvgAbout = {
  id: 'flame-svg',
  name: 'SVG flame graph',
  label: 'SVG flame graph',
  read: [],
  write: ['.svg'],
  exportRank: 8,
  help: { write: 'a flame graph as flamegraph.pl draws it, CPU (wall with --metric wall), tooltips per frame' },
  note: 'A picture of the CPU flame graph as flamegraph.pl draws it, with a tooltip per frame: pastes into an issue or a chat as it is.',
  openHint: (path: string) => `Open it in a browser or an image viewer: ${path}`,
  keeps: 'the SVG flame graph keeps one metric\'s merged stacks: no threads, sample times, GC pauses or counters',
} as const satisfies FormatDescription;
