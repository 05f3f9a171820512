// The shared flame graphs: their descriptions (about.ts) with their writers.

import type { ProfileMetric } from '../../profile/event-metrics.js';
import type { Recording } from '../../profile/recording.js';
import type { RecordingFormat } from '../recording-format.js';
import { flameHtmlAbout, flameSvgAbout } from './about.js';
import { flameMetrics } from './flame-tree.js';
import { recordingFlameHtml } from './to-flame-html.js';
import { recordingFlameSvg } from './to-flame-svg.js';

/** What the graphs are called: the recording's first process, when it says its name. */
function titleOf(rec: Recording): string {
  const name = rec.processes()[0]?.name ?? '';
  return name === '' ? 'Flame graph (clrscope)' : `Flame graph of ${name} (clrscope)`;
}

/** The SVG's metric: the one asked for when the recording has it, else the first it has. */
function svgMetric(rec: Recording, asked: ProfileMetric): ProfileMetric {
  const present = flameMetrics(rec);
  return present.includes(asked) || present.length === 0 ? asked : present[0];
}

export const flameHtmlFormat = {
  ...flameHtmlAbout,
  writer: (rec) => [recordingFlameHtml(rec, titleOf(rec))],
} as const satisfies RecordingFormat;

export const flameSvgFormat = {
  ...flameSvgAbout,
  writer: (rec, context) => [recordingFlameSvg(rec, svgMetric(rec, context.metric === 'wall' ? 'wall' : 'cpu'), titleOf(rec))],
} as const satisfies RecordingFormat;
