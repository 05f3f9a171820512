// "Copy as SVG" and "Save as HTML": the flame graph as the view shows it (metric or event type,
// folding, threads, window, zoom, search or the picked function) written as the shared graphs
// are (structs/formats/flame-graph/view-graph.ts). The clipboard is the page's own in a browser;
// Electron's page has no clipboard permission, so its shell writes it (copyToClipboard).

import { labelMatcher, parseSearch } from '../canvas/flame-layout.js';
import { viewFlameHtml, viewFlameSvg, type ViewGraph } from '../../../structs/formats/flame-graph/view-graph.js';
import type { AppState } from './app-state.js';
import { selectedSession, type StationContext } from './station-context.js';
import { flameIsCurrent } from './view-queries.js';

/** A search that matches exactly one frame name: the function picked in a table, as the view highlights it. */
export function exactName(name: string): RegExp {
  return new RegExp(`^${name.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}$`);
}

/** The view's graph, or null when there is none to share (no tree yet, or one answering other options). */
export function viewGraph(state: AppState): ViewGraph | null {
  const tree = state.flame;
  if (tree === null || tree.nodeCount <= 1 || !flameIsCurrent(state)) return null;
  const query = state.selectedFunction !== null ? exactName(state.selectedFunction) : parseSearch(state.flameOptions.search);
  const label = selectedSession(state)?.label ?? '';
  return {
    tree,
    metric: state.flameOptions.metric,
    zoom: state.flameZoom,
    search: state.selectedFunction !== null ? '' : state.flameOptions.search,
    match: query === null ? null : labelMatcher(query),
    inverted: state.flameShape?.inverted === true,
    title: label === '' ? 'Flame graph (clrscope)' : `Flame graph of ${label} (clrscope)`,
  };
}

/** A file name from the session's label: letters, digits, dots and dashes. */
export function shareFileName(state: AppState, extension: string): string {
  const label = (selectedSession(state)?.label ?? '').split(/[\s/\\]+/).filter((w) => w !== '').pop() ?? '';
  const stem = label.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 60);
  return `flame${stem === '' ? '' : `-${stem}`}${extension}`;
}

function kb(text: string): string {
  return `${Math.max(1, Math.round(text.length / 1024)).toLocaleString()} KB`;
}

export class FlameShare {
  constructor(private readonly ctx: StationContext) {}

  /** Puts the view's SVG on the clipboard; the sentence to show says what was copied. */
  async copySvg(): Promise<string> {
    const view = viewGraph(this.ctx.store.get());
    if (view === null) return 'Nothing to copy yet: the flame graph has no frames.';
    const svg = viewFlameSvg(view);
    if (this.ctx.api.copyToClipboard !== undefined) {
      await this.ctx.api.copyToClipboard({ text: svg, svg: true });
      return `Copied the flame graph as SVG (${kb(svg)}).`;
    }
    // Chromium takes image/svg+xml beside the text (for what pastes pictures); the text is what an issue or a chat takes.
    const item = globalThis.ClipboardItem as (typeof ClipboardItem & { supports?: (type: string) => boolean }) | undefined;
    if (item?.supports?.('image/svg+xml') === true) {
      await navigator.clipboard.write([new item({ 'text/plain': new Blob([svg], { type: 'text/plain' }), 'image/svg+xml': new Blob([svg], { type: 'image/svg+xml' }) })]);
    } else {
      await navigator.clipboard.writeText(svg);
    }
    return `Copied the flame graph as SVG (${kb(svg)}).`;
  }

  /** Saves the view as one HTML page through the browser's download (Electron's asks where); the sentence says what was saved. */
  saveHtml(): string {
    const state = this.ctx.store.get();
    const view = viewGraph(state);
    if (view === null) return 'Nothing to save yet: the flame graph has no frames.';
    const html = viewFlameHtml(view);
    const url = URL.createObjectURL(new Blob([html], { type: 'text/html' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = shareFileName(state, '.html');
    document.body.appendChild(a);
    a.click();
    a.remove();
    // The download has its bytes once it began; the URL may go after this task.
    this.ctx.timers.setTimeout(() => URL.revokeObjectURL(url), 10000);
    return `Saved ${a.download} (${kb(html)}): the view as one page that opens in any browser.`;
  }
}
