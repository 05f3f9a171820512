// A FlatTree drawn by the flame graph's renderer in a scrolling box: the halves of the
// callers/callees sandwich and the differential flame graph. Click zooms (the root zooms out;
// the zoom is this canvas's state, a path of labels: canvas/flame-zoom.ts), double-click picks
// a frame, hovering shows what `tooltip` says about a node.

import { useEffect, useRef, useState, type MouseEvent, type ReactElement, type ReactNode } from 'react';
import { parseSearch } from '../canvas/flame-layout.js';
import { FlameRenderer } from '../canvas/flame-renderer.js';
import { NOT_ZOOMED, zoomAfterClick, type ZoomPath } from '../canvas/flame-zoom.js';
import { hoverUnderPointer, nodeUnderPointer } from './flame-pointer.js';
import type { FlatTree } from '../worker/protocol.js';
import { canvasColors, flameColors, useCanvasColors } from './theme.js';

interface Props {
  tree: FlatTree | null;
  /** Icicle: root on top. */
  inverted: boolean;
  shades?: Uint8Array;
  search?: string;
  onPick?(node: number): void;
  tooltip(node: number): ReactNode;
  testId: string;
  empty: string;
}

export function TreeCanvas({ tree, inverted, shades, search, onPick, tooltip, testId, empty }: Props): ReactElement {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const rendererRef = useRef<FlameRenderer | null>(null);
  const [tip, setTip] = useState<{ node: number; x: number; y: number } | null>(null);
  const [zoom, setZoom] = useState<ZoomPath>(NOT_ZOOMED);

  useEffect(() => {
    const canvas = canvasRef.current;
    const box = boxRef.current;
    if (canvas === null || box === null) return;
    const renderer = new FlameRenderer(canvas, { colors: flameColors(canvasColors()), zoomAnimationMs: 0 });
    rendererRef.current = renderer;
    // A new renderer (another orientation) starts on the whole tree.
    setZoom(NOT_ZOOMED);
    const resize = new ResizeObserver(() => fit(renderer, canvas, box, inverted));
    resize.observe(box);
    return () => {
      resize.disconnect();
      renderer.dispose();
      rendererRef.current = null;
    };
  }, [testId, inverted]);

  const colors = useCanvasColors();
  useEffect(() => rendererRef.current?.setColors(flameColors(colors)), [colors]);

  useEffect(() => {
    const r = rendererRef.current;
    const canvas = canvasRef.current;
    const box = boxRef.current;
    if (r === null || canvas === null || box === null || tree === null) return;
    r.setTree(tree, { inverted, ...(shades !== undefined ? { shades } : {}) });
    fit(r, canvas, box, inverted);
  }, [tree, inverted, shades]);

  useEffect(() => {
    rendererRef.current?.zoomToPath(zoom);
  }, [zoom]);

  useEffect(() => {
    rendererRef.current?.search(parseSearch(search ?? ''));
  }, [search, tree]);

  const nodeAt = (e: MouseEvent<HTMLCanvasElement>): number => nodeUnderPointer(rendererRef.current, e);

  // The tooltip sits in the scrolled content of the box, so it moves with the canvas.
  const onMove = (e: MouseEvent<HTMLCanvasElement>): void => {
    const box = boxRef.current;
    const at = hoverUnderPointer(rendererRef.current, box, e);
    setTip(at === null || box === null ? null : { node: at.node, x: at.x + box.scrollLeft, y: at.y + box.scrollTop });
  };

  const onClick = (e: MouseEvent<HTMLCanvasElement>): void => {
    const next = zoomAfterClick(rendererRef.current?.tree ?? null, nodeAt(e));
    if (next !== null) setZoom(next);
  };

  const onDoubleClick = (e: MouseEvent<HTMLCanvasElement>): void => {
    const node = nodeAt(e);
    if (node > 0) onPick?.(node);
  };

  return (
    <div className="tree-canvas">
      <div className="flame-box" ref={boxRef} data-testid={testId}>
        <canvas
          ref={canvasRef} onMouseMove={onMove} onMouseLeave={() => { rendererRef.current?.setHover(-1); setTip(null); }}
          onClick={onClick} onDoubleClick={onDoubleClick}
        />
        {tip !== null && <div className="tooltip tree-tooltip" style={{ left: tip.x + 12, top: tip.y + 12 }}>{tooltip(tip.node)}</div>}
      </div>
      {(tree === null || tree.nodeCount <= 1) && <div className="canvas-empty">{empty}</div>}
    </div>
  );
}

function fit(r: FlameRenderer, canvas: HTMLCanvasElement, box: HTMLDivElement, inverted: boolean): void {
  const width = box.clientWidth;
  const height = Math.max(box.clientHeight, Math.ceil(r.contentHeight()));
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  r.resize(width, height);
  if (!inverted) box.scrollTop = box.scrollHeight;
}
