// The flame graph: the toolbar over a canvas drawn by the FlameRenderer, with a tooltip,
// click-to-zoom and search highlighting with the matches' share. The zoom belongs to the app
// state (flameZoom, a path of labels: canvas/flame-zoom.ts), so it survives a switch of tabs
// (a new renderer); a click asks the workstation for it and the renderer follows, finding the
// path again in every live update. Right-clicking a managed frame of a live session offers
// "Measure exactly": its method's exact calls and latency, in the Measure view.

import { useEffect, useRef, useState, type MouseEvent, type ReactElement } from 'react';
import { parseSearch } from '../canvas/flame-layout.js';
import { useFlameKeys } from './flame-keyboard.js';
import { noSamples } from './empty-reasons.js';
import { FlameRenderer, type SearchResult } from '../canvas/flame-renderer.js';
import { NOT_ZOOMED, zoomAfterClick } from '../canvas/flame-zoom.js';
import { flameIsCurrent } from '../state/view-queries.js';
import { exactName } from '../state/flame-share.js';
import type { FlameMetric, FlatTree } from '../worker/protocol.js';
import { eventMetricInfo, isEventMetric } from '../../../structs/profile/event-metrics.js';
import { FlameToolbar } from './flame-toolbar.js';
import { hoverUnderPointer, nodeUnderPointer, pointerInBox } from './flame-pointer.js';
import { FoldBar } from './fold-bar.js';
import { FlameShareButtons } from './flame-share-buttons.js';
import { FlameTooltipView, type TooltipAt } from './flame-tooltip.js';
import { formatMetricValue, formatNs, formatPercent } from './format.js';
import { noteFlameDraw, registerFlame } from './flame-probe.js';
import { isLive } from '../state/app-state.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { canvasColors, flameColors, useCanvasColors } from './theme.js';

export function FlameView(): ReactElement {
  const ws = useWorkstation();
  const tree = useAppState((s) => s.flame);
  const shape = useAppState((s) => s.flameShape);
  const metric = useAppState((s) => s.flameOptions.metric);
  const sources = useAppState((s) => s.sources);
  const search = useAppState((s) => s.flameOptions.search);
  const selected = useAppState((s) => s.selectedFunction);
  const zoom = useAppState((s) => s.flameZoom);
  const inverted = useAppState((s) => s.flameOptions.inverted);
  const sampleCount = useAppState((s) => s.summary?.sampleCount);
  const live = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'recording');
  // The tree on screen answers other options (a metric, a type, a fold just changed) until the
  // worker answers the new ones: say so rather than let it pass for the new tree.
  const stale = useAppState((s) => s.flame !== null && !flameIsCurrent(s));
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const rendererRef = useRef<FlameRenderer | null>(null);
  const shownShape = useRef<string | null>(null);
  const [tip, setTip] = useState<TooltipAt | null>(null);
  const [found, setFound] = useState<SearchResult | null>(null);
  const [menu, setMenu] = useState<{ label: string; x: number; y: number } | null>(null);
  const zoomTo = useFlameKeys({ tree: () => rendererRef.current?.tree ?? null, zoom, search, inverted, setZoom: (path) => ws.view.setFlameZoom(path) });
  const measurable = useAppState((s) => {
    const session = s.sessions.find((x) => x.id === s.selectedSessionId);
    return isLive(session) && session?.source !== 'file';
  });

  useEffect(() => {
    const canvas = canvasRef.current;
    const box = boxRef.current;
    if (canvas === null || box === null) return;
    const renderer: FlameRenderer = new FlameRenderer(canvas, { colors: flameColors(canvasColors()), onDraw: () => noteFlameDraw(renderer.tree) });
    rendererRef.current = renderer;
    shownShape.current = null;
    const unregister = registerFlame(renderer, canvas);
    const resize = new ResizeObserver(() => fitCanvas(renderer, canvas, box));
    resize.observe(box);
    return () => {
      resize.disconnect();
      unregister();
      renderer.dispose();
      rendererRef.current = null;
    };
  }, [ws]);

  const colors = useCanvasColors();
  useEffect(() => rendererRef.current?.setColors(flameColors(colors)), [colors]);

  useEffect(() => {
    const r = rendererRef.current;
    const canvas = canvasRef.current;
    const box = boxRef.current;
    if (r === null || canvas === null || box === null || tree === null || shape === null) return;
    const shapeKey = `${shape.inverted}/${shape.groupByThread}/${shape.groupByProcess}`;
    // Another shape changes every path: a zoom picked on the old tree would land somewhere arbitrary.
    const reshaped = shownShape.current !== null && shownShape.current !== shapeKey;
    if (reshaped && ws.state.flameZoom.length > 0) ws.view.setFlameZoom(NOT_ZOOMED);
    r.setTree(tree, { inverted: shape.inverted, zoom: ws.state.flameZoom });
    fitCanvas(r, canvas, box);
    // The root's end of the graph is where to look first: the bottom of a flame, the top of an icicle.
    if (shownShape.current !== shapeKey) {
      shownShape.current = shapeKey;
      box.scrollTop = shape.inverted ? 0 : box.scrollHeight;
    }
  }, [ws, tree, shape]);

  useEffect(() => {
    rendererRef.current?.zoomToPath(zoom);
  }, [zoom]);

  useEffect(() => {
    const r = rendererRef.current;
    if (r === null) return;
    // The function picked in the functions table wins over the search: it is the more precise ask.
    const query = selected !== null ? exactName(selected) : parseSearch(search);
    const result = r.search(query);
    setFound(query === null ? null : result);
  }, [search, selected, tree]);

  const onMove = (e: MouseEvent<HTMLCanvasElement>): void => setTip(hoverUnderPointer(rendererRef.current, boxRef.current, e));

  const onLeave = (): void => {
    rendererRef.current?.setHover(-1);
    setTip(null);
  };

  // A managed frame's name is a method pattern as it stands (generic arguments are ignored).
  const onContextMenu = (e: MouseEvent<HTMLCanvasElement>): void => {
    const node = nodeUnderPointer(rendererRef.current, e);
    const tipped = node > 0 ? rendererRef.current?.tooltip(node) : null;
    const box = boxRef.current;
    if (!measurable || tipped == null || tipped.kind !== 0 || box === null) {
      setMenu(null);
      return;
    }
    e.preventDefault();
    const { x, y } = pointerInBox(box, e);
    setMenu({ label: tipped.label, x, y });
  };

  const onClick = (e: MouseEvent<HTMLCanvasElement>): void => {
    if (menu !== null) {
      setMenu(null);
      return;
    }
    const next = zoomAfterClick(rendererRef.current?.tree ?? null, nodeUnderPointer(rendererRef.current, e));
    if (next !== null) zoomTo(next);
  };

  const resetZoom = (): void => zoomTo(NOT_ZOOMED);

  const tooltip = tip === null ? null : rendererRef.current?.tooltip(tip.node) ?? null;
  return (
    <div className="flame-view">
      <FlameToolbar onResetZoom={resetZoom} zoomed={zoom.length > 0} />
      <FoldBar />
      <div className="flame-info">
        <FlameCaption tree={tree} metric={metric} />
        {selected !== null && (
          <button type="button" className="chip on" data-testid="flame-selected" title="Selected in the functions table; click to clear" onClick={() => ws.view.selectFunction(null)}>
            {selected} ✕
          </button>
        )}
        {selected !== null && (
          <button type="button" className="chip" data-testid="flame-selected-source" title="The selected function's source with the time per line" onClick={() => ws.sources.showSource(selected)}>
            Source
          </button>
        )}
        {found !== null && (
          <span className="search-share" data-testid="search-share">
            {found.matchCount} matching {found.matchCount === 1 ? 'frame' : 'frames'}: {formatPercent(found.share)} of the time ({formatNs(found.matchedValue)})
          </span>
        )}
        <span className="hint flame-hint">click a frame to zoom; double-click or click the root to zoom out; ? lists the keys</span>
        <FlameShareButtons />
      </div>
      <div className="flame-frame">
        <div className="flame-box" ref={boxRef} data-testid="flame-box">
          <canvas
            ref={canvasRef} data-testid="flame-canvas" onMouseMove={onMove} onMouseLeave={onLeave} onClick={onClick} onDoubleClick={resetZoom}
            onContextMenu={onContextMenu}
          />
        </div>
        {menu !== null && (
          <div className="flame-menu" style={{ left: menu.x, top: menu.y }} data-testid="flame-menu" onMouseLeave={() => setMenu(null)}>
            <button type="button" data-testid="measure-exactly" onClick={() => { setMenu(null); void ws.measure.measureMethod(menu.label); }}>
              Measure exactly: {menu.label}
            </button>
            <button type="button" data-testid="flame-source" onClick={() => { setMenu(null); ws.sources.showSource(menu.label); }}>
              Source: {menu.label}
            </button>
          </div>
        )}
        {tooltip !== null && tip !== null && <FlameTooltipView tip={tooltip} at={tip} source={sources.get(tooltip.label)} />}
        {stale && <div className="flame-updating" data-testid="flame-updating">Updating…</div>}
        {(tree === null || tree.nodeCount <= 1) && (
          <div className="canvas-empty" data-testid="flame-empty">{tree === null ? 'Waiting for samples…' : noSamples(sampleCount, live)}</div>
        )}
      </div>
    </div>
  );
}

/**
 * Sizes the canvas to the box's width and to the taller of the box and the tree's rows, so a
 * deep tree scrolls instead of losing its deepest frames. A flame (root at the bottom) that
 * was scrolled to the bottom stays there as it grows.
 */
function fitCanvas(r: FlameRenderer, canvas: HTMLCanvasElement, box: HTMLDivElement): void {
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
  const width = box.clientWidth;
  const height = Math.max(box.clientHeight, Math.ceil(r.contentHeight()));
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  r.resize(width, height);
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function metricTitle(metric: FlameMetric): string {
  return metric === 'cpu' ? 'CPU time' : metric === 'wall' ? 'Wall time' : eventMetricInfo(metric).title;
}

function FlameCaption({ tree, metric }: { tree: FlatTree | null; metric: FlameMetric }): ReactElement {
  if (tree === null) return <span />;
  return (
    <span data-testid="flame-caption">
      {metricTitle(metric)}: {formatMetricValue(metric, tree.totalValue)} in {tree.sampleCount.toLocaleString()} {isEventMetric(metric) ? 'events' : 'samples'}, {tree.nodeCount.toLocaleString()} frames
    </span>
  );
}
