// One HTML file with an interactive flame graph of a recording, as async-profiler's: opened from
// disk in any browser, with no server, no network and no file beside it (the style, the script
// and the trees are inside). A tree per metric the recording has (CPU, wall, each event type).

import type { Recording } from '../../profile/recording.js';
import { escapeXml } from './to-flame-svg.js';
import { buildFlameTree, flameMetrics, type FlameTree } from './flame-tree.js';
import { FLAME_HTML_SCRIPT } from './flame-html-script.js';

const STYLE = `
body { margin: 0; font: 13px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; background: #fafaf5; color: #222; }
header { display: flex; gap: 10px; align-items: center; padding: 8px 12px; border-bottom: 1px solid #ddd; flex-wrap: wrap; }
h1 { font-size: 15px; margin: 0 12px 0 0; }
input, select, button { font: inherit; height: 26px; }
input { width: 260px; padding: 0 6px; }
#status { padding: 6px 12px; font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: 12px; min-height: 1.4em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#graph { position: relative; margin: 0 12px 12px; overflow: hidden; }
.frame { position: absolute; height: 17px; font: 11px/17px ui-monospace, 'DejaVu Sans Mono', monospace; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; padding-left: 3px; box-sizing: border-box; border-radius: 2px; cursor: pointer; color: #000; }
.frame:hover { outline: 1px solid #000; }
.frame.above { opacity: 0.55; }
.frame.match { background: #d0f !important; color: #fff; }
.hint { color: #666; font-size: 12px; }
`;

/** Where the page opens: zoomed to a path of names from the root's child down, searching a text (the workstation's view when it was saved). */
export interface FlameHtmlStart {
  zoom: string[];
  search: string;
}

/** The trees as the page's script reads them: a JSON text safe inside <script> (no "</"). */
function embedded(trees: readonly FlameTree[], start: FlameHtmlStart | undefined): string {
  return JSON.stringify(start === undefined ? { trees } : { trees, start }).replace(/</g, '\\u003c');
}

export function flameHtml(trees: readonly FlameTree[], title: string, start?: FlameHtmlStart): string {
  return [
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    // No request may leave the page: the file is shared, and opened offline.
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; script-src \'unsafe-inline\'">\n',
    `<title>${escapeXml(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n`,
    `<header><h1>${escapeXml(title)}</h1>`,
    '<label>Metric <select id="metric" aria-label="Metric"></select></label>',
    '<input id="search" type="search" placeholder="Search frames, or /regex/ (Enter: next match)" aria-label="Search" spellcheck="false">',
    '<button id="reset" type="button">Reset zoom</button>',
    '<span class="hint">Click a frame to zoom, click it again to go back; Esc resets, / searches, n goes to the next match.</span></header>\n',
    '<div id="status"></div>\n<div id="graph"></div>\n',
    `<script type="application/json" id="flame-data">${embedded(trees, start)}</script>\n`,
    `<script>${FLAME_HTML_SCRIPT}</script>\n</body>\n</html>\n`,
  ].join('');
}

/** The recording's flame graphs, one per metric it has with a value (CPU first), in one page. */
export function recordingFlameHtml(rec: Recording, title: string): string {
  const trees = flameMetrics(rec).map((m) => buildFlameTree(rec, m)).filter((t) => t.total[0] > 0);
  if (trees.length === 0) trees.push(buildFlameTree(rec, 'cpu'));
  return flameHtml(trees, title);
}
