// The thread timeline on canvas: a lane per thread, one column per pixel; grey where the
// thread was seen waiting, orange as strong as the share of the column it spent on a CPU;
// GC pauses as bands across every lane. Dragging picks a time range, a click a thread's
// moment.

import { useEffect, useState, type MouseEvent, type ReactElement } from 'react';
import type { ThreadTimeline } from '../../../structs/analysis/thread-timeline.js';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import { niceStep, tickLabel } from './gc-timeline-canvas.js';
import { useCanvasWidth } from './use-canvas-width.js';
import { useCanvasColors } from './theme.js';

// Wide enough for the runtime's own thread names (".NET Tiered Compilation Worker") at 11 px.
/**
 * The thread names' column: 200 px, wider on a wide canvas (a process tree's "[pid name]" prefix
 * cut ".NET Tiered Compilation Worker" at 200), at most 300 px. The canvas says it (data-label-width).
 */
export function labelWidth(canvasWidth: number): number {
  return Math.round(Math.min(300, Math.max(200, canvasWidth * 0.19)));
}
export const LANE_HEIGHT = 16;
const LANE_GAP = 3;
const AXIS = 20;
const RIGHT = 8;

interface Props {
  timeline: ThreadTimeline;
  pauses: readonly PauseEntry[];
  range: { fromMs: number; toMs: number } | null;
  marker: { threadId: number; atMs: number } | null;
  /** The plot's width in pixels, so the controller asks for one bucket per pixel. */
  onPlotWidth(width: number): void;
  onRange(fromMs: number, toMs: number): void;
  onPoint(threadId: number, atMs: number): void;
}

export function TimelineCanvas({ timeline, pauses, range, marker, onPlotWidth, onRange, onPoint }: Props): ReactElement {
  const { canvasRef, width } = useCanvasWidth(900);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const lanes = timeline.threads.length;
  const height = AXIS + Math.max(1, lanes) * (LANE_HEIGHT + LANE_GAP) + 4;
  const labelsW = labelWidth(width);
  const plotW = Math.max(1, width - labelsW - RIGHT);
  const span = Math.max(1e-6, timeline.toMs - timeline.fromMs);
  const xOf = (ms: number): number => labelsW + ((ms - timeline.fromMs) / span) * plotW;
  const msOf = (x: number): number => timeline.fromMs + Math.min(1, Math.max(0, (x - labelsW) / plotW)) * span;
  const laneTop = (lane: number): number => AXIS + lane * (LANE_HEIGHT + LANE_GAP);

  const colors = useCanvasColors();

  useEffect(() => onPlotWidth(plotW), [plotW, onPlotWidth]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null) return;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.height = `${height}px`;
    const g = canvas.getContext('2d');
    if (g === null) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    // Time axis.
    g.strokeStyle = colors.grid;
    g.fillStyle = colors.text;
    const step = niceStep(span, plotW);
    for (let t = Math.ceil(timeline.fromMs / step) * step; t <= timeline.toMs + 1e-9; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      g.beginPath();
      g.moveTo(x, AXIS - 4);
      g.lineTo(x, height);
      g.stroke();
      // The last tick's label ends at the canvas's edge rather than past it.
      const tick = tickLabel(t, step);
      const tickW = g.measureText(tick).width;
      g.fillText(tick, x + 3 + tickW > width ? x - 3 - tickW : x + 3, AXIS / 2);
    }
    // Lanes.
    const buckets = timeline.buckets;
    const colW = plotW / buckets;
    // A busy ASP.NET Core app has twenty ".NET TP Worker" lanes: a shared name gets the OS thread id, as the stack panel and the thread filter show it.
    const named = new Map<string, number>();
    for (const t of timeline.threads) named.set(t.name, (named.get(t.name) ?? 0) + 1);
    timeline.threads.forEach((t, lane) => {
      const top = laneTop(lane);
      g.fillStyle = colors.text;
      const label = (named.get(t.name) ?? 0) > 1 ? `${t.name} ${t.osTid}` : t.name;
      g.fillText(fitText(g, label, labelsW - 12), 6, top + LANE_HEIGHT / 2);
      for (let k = 0; k < buckets; k++) {
        const seen = timeline.seen[lane * buckets + k];
        if (seen <= 0) continue;
        const cpu = timeline.cpu[lane * buckets + k];
        const x = labelsW + k * colW;
        g.fillStyle = colors.timelineWait;
        g.fillRect(x, top, Math.max(1, colW), LANE_HEIGHT);
        if (cpu > 0.02) {
          g.fillStyle = `rgba(${colors.timelineCpu}, ${Math.min(1, 0.25 + 0.75 * cpu).toFixed(2)})`;
          const h = Math.max(2, Math.round(LANE_HEIGHT * Math.min(1, cpu)));
          g.fillRect(x, top + LANE_HEIGHT - h, Math.max(1, colW), h);
        }
      }
    });
    // GC pauses across every lane.
    g.fillStyle = colors.timelinePause;
    for (const p of pauses) {
      const from = p.startNs / 1e6;
      const to = (p.startNs + p.durationNs) / 1e6;
      if (to < timeline.fromMs || from > timeline.toMs) continue;
      const x0 = xOf(from);
      g.fillRect(x0, AXIS - 4, Math.max(1, xOf(to) - x0), height - AXIS + 4);
    }
    // The flame graph's range, a drag in progress, and the clicked moment.
    const shown = drag !== null ? { fromMs: Math.min(drag.from, drag.to), toMs: Math.max(drag.from, drag.to) } : range;
    if (shown !== null) {
      const x0 = xOf(shown.fromMs);
      const x1 = xOf(shown.toMs);
      g.fillStyle = colors.selection;
      g.fillRect(x0, AXIS - 4, x1 - x0, height - AXIS + 4);
      g.strokeStyle = colors.selectionEdge;
      g.strokeRect(x0 + 0.5, AXIS - 3.5, Math.max(1, x1 - x0 - 1), height - AXIS + 2);
    }
    if (marker !== null) {
      const lane = timeline.threads.findIndex((t) => t.id === marker.threadId);
      if (lane >= 0) {
        g.strokeStyle = colors.marker;
        const x = Math.round(xOf(marker.atMs)) + 0.5;
        g.beginPath();
        g.moveTo(x, laneTop(lane) - 2);
        g.lineTo(x, laneTop(lane) + LANE_HEIGHT + 2);
        g.stroke();
      }
    }
  }, [timeline, pauses, range, marker, drag, width, height, colors]);

  const point = (e: MouseEvent<HTMLCanvasElement>): { x: number; y: number } => {
    const rect = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  };
  const onDown = (e: MouseEvent<HTMLCanvasElement>): void => {
    const { x } = point(e);
    if (x < labelsW) return;
    const ms = msOf(x);
    setDrag({ from: ms, to: ms });
  };
  const onMove = (e: MouseEvent<HTMLCanvasElement>): void => {
    if (drag === null) return;
    setDrag({ from: drag.from, to: msOf(point(e).x) });
  };
  const onUp = (e: MouseEvent<HTMLCanvasElement>): void => {
    if (drag === null) return;
    const { x, y } = point(e);
    const to = msOf(x);
    setDrag(null);
    // A drag shorter than three pixels is a click on a moment of one thread.
    if (Math.abs(xOf(to) - xOf(drag.from)) < 3) {
      const lane = Math.floor((y - AXIS) / (LANE_HEIGHT + LANE_GAP));
      if (lane >= 0 && lane < lanes) onPoint(timeline.threads[lane].id, to);
      return;
    }
    onRange(Math.min(drag.from, to), Math.max(drag.from, to));
  };

  return (
    <canvas
      ref={canvasRef} className="timeline-canvas" data-testid="timeline-canvas" data-label-width={labelsW} style={{ width: '100%', height }}
      onMouseDown={onDown} onMouseMove={onMove} onMouseUp={onUp} onMouseLeave={() => setDrag(null)}
    />
  );
}

/** `text` cut at its end with an ellipsis to fit `width` pixels in the context's font. */
function fitText(g: CanvasRenderingContext2D, text: string, width: number): string {
  if (g.measureText(text).width <= width) return text;
  let n = text.length;
  while (n > 1 && g.measureText(`${text.slice(0, n)}…`).width > width) n--;
  return `${text.slice(0, n)}…`;
}
