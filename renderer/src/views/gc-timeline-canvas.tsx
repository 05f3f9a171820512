// The pauses on a time axis, drawn on canvas (a long recording has tens of thousands): each
// pause a bar at its start, as wide as it lasted (at least a pixel), as tall as the log of
// its duration. Dragging picks a range; hovering names the pause; clicking one picks it.

import { useEffect, useState, type MouseEvent, type ReactElement } from 'react';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import { groupName, pauseGroup } from '../state/pause-groups.js';
import { formatMs, formatNs } from './format.js';
import { useCanvasWidth } from './use-canvas-width.js';
import { pauseColor, useCanvasColors } from './theme.js';

interface Props {
  pauses: readonly PauseEntry[];
  durationMs: number;
  /** Where the axis begins: 0, or where a session's kept window begins. */
  fromMs: number;
  range: { fromMs: number; toMs: number } | null;
  onRange(fromMs: number, toMs: number): void;
  /** The picked pause (drawn outlined), and what a click picks (null: a click away from every pause). */
  picked: PauseEntry | null;
  onPick(pause: PauseEntry | null): void;
}

const HEIGHT = 180;
const AXIS = 20;
const LEFT = 8;
const RIGHT = 8;

export function niceStep(spanMs: number, widthPx: number): number {
  const target = spanMs / Math.max(1, widthPx / 90);
  const pow = 10 ** Math.floor(Math.log10(Math.max(target, 1e-3)));
  for (const m of [1, 2, 5, 10]) if (m * pow >= target) return m * pow;
  return 10 * pow;
}

/** Seconds with as many decimals as the step needs ("0 s", "1.5 s", "0.25 s"). */
export function tickLabel(ms: number, stepMs: number): string {
  const decimals = stepMs >= 1000 ? 0 : stepMs >= 100 ? 1 : stepMs >= 10 ? 2 : 3;
  return `${(ms / 1000).toFixed(decimals)} s`;
}

export function GcTimelineCanvas({ pauses, durationMs, fromMs, range, onRange, picked, onPick }: Props): ReactElement {
  const { canvasRef, width } = useCanvasWidth(800);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const [hover, setHover] = useState<{ pause: PauseEntry; x: number; y: number } | null>(null);
  // The axis covers the recording (its kept part) and every pause even if one outlasts the last sample.
  let endMs = durationMs;
  for (const p of pauses) endMs = Math.max(endMs, (p.startNs + p.durationNs) / 1e6);
  const originMs = Math.min(fromMs, endMs);
  const spanMs = Math.max(endMs - originMs, 1);
  const plotW = Math.max(1, width - LEFT - RIGHT);
  const xOf = (ms: number): number => LEFT + ((ms - originMs) / spanMs) * plotW;
  const msOf = (x: number): number => originMs + Math.min(spanMs, Math.max(0, ((x - LEFT) / plotW) * spanMs));

  const colors = useCanvasColors();

  useEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null) return;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(HEIGHT * dpr);
    const g = canvas.getContext('2d');
    if (g === null) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, HEIGHT);
    const plotH = HEIGHT - AXIS - 6;
    // Grid and time labels.
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = colors.text;
    g.strokeStyle = colors.grid;
    g.lineWidth = 1;
    const step = niceStep(spanMs, plotW);
    for (let t = Math.ceil(originMs / step) * step; t <= originMs + spanMs + 1e-9; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      g.beginPath();
      g.moveTo(x, 4);
      g.lineTo(x, HEIGHT - AXIS);
      g.stroke();
      g.fillText(tickLabel(t, step), Math.min(x + 3, width - 40), HEIGHT - 6);
    }
    // Bars: height on a log scale from 10 µs to the longest pause, so short ones stay visible.
    let maxNs = 1;
    for (const p of pauses) maxNs = Math.max(maxNs, p.durationNs);
    const floorNs = 10_000;
    const scale = Math.log(Math.max(maxNs, floorNs * 2) / floorNs);
    for (const p of pauses) {
      const x = xOf(p.startNs / 1e6);
      const w = Math.max(1, xOf((p.startNs + p.durationNs) / 1e6) - x);
      const h = Math.max(3, (plotH * Math.log(Math.max(p.durationNs, floorNs) / floorNs + 1)) / (scale + 1));
      g.fillStyle = pauseColor(colors, pauseGroup(p));
      g.fillRect(x, HEIGHT - AXIS - h, w, h);
      if (p === picked) {
        g.strokeStyle = colors.selectionEdge;
        g.lineWidth = 2;
        g.strokeRect(x - 2, HEIGHT - AXIS - h - 2, w + 4, h + 4);
        g.lineWidth = 1;
      }
    }
    const shown = drag ?? (range === null ? null : { from: range.fromMs, to: range.toMs });
    if (shown !== null) {
      const a = xOf(Math.min(shown.from, shown.to));
      const b = xOf(Math.max(shown.from, shown.to));
      g.fillStyle = colors.selection;
      g.fillRect(a, 0, Math.max(1, b - a), HEIGHT - AXIS);
      g.strokeStyle = colors.selectionEdge;
      g.strokeRect(a + 0.5, 0.5, Math.max(1, b - a - 1), HEIGHT - AXIS - 1);
    }
  });

  const xIn = (e: MouseEvent<HTMLCanvasElement>): number => e.clientX - e.currentTarget.getBoundingClientRect().left;

  const onDown = (e: MouseEvent<HTMLCanvasElement>): void => {
    const ms = msOf(xIn(e));
    setDrag({ from: ms, to: ms });
  };
  // The pause nearest x within 4 px, if any.
  const pauseAt = (x: number): PauseEntry | null => {
    const ms = msOf(x);
    const tolerance = (4 / plotW) * spanMs;
    let best: PauseEntry | null = null;
    let bestDist = tolerance;
    for (const p of pauses) {
      const s = p.startNs / 1e6;
      const end = s + p.durationNs / 1e6;
      const d = ms < s ? s - ms : ms > end ? ms - end : 0;
      if (d <= bestDist) {
        best = p;
        bestDist = d;
      }
    }
    return best;
  };
  const onMove = (e: MouseEvent<HTMLCanvasElement>): void => {
    const x = xIn(e);
    if (drag !== null) {
      setDrag({ ...drag, to: msOf(x) });
      return;
    }
    const best = pauseAt(x);
    const y = e.clientY - e.currentTarget.getBoundingClientRect().top;
    setHover(best === null ? null : { pause: best, x, y });
  };
  const onUp = (e?: MouseEvent<HTMLCanvasElement>): void => {
    if (drag === null) return;
    const lo = Math.min(drag.from, drag.to);
    const hi = Math.max(drag.from, drag.to);
    setDrag(null);
    // A click without a drag is not a range: it picks the pause under the mouse.
    if (((hi - lo) / spanMs) * plotW >= 3) onRange(lo, hi);
    else if (e !== undefined) onPick(pauseAt(xIn(e)));
  };

  return (
    <div className="timeline-box">
      <canvas
        ref={canvasRef} className="gc-timeline" data-testid="gc-timeline" height={HEIGHT}
        onMouseDown={onDown} onMouseMove={onMove} onMouseUp={(e) => onUp(e)} onMouseLeave={() => { setHover(null); onUp(); }}
      />
      {hover !== null && drag === null && (
        <div className="tooltip" style={{ left: hover.x + 12, top: hover.y + 12, transform: hover.x > width / 2 ? 'translateX(calc(-100% - 24px))' : undefined }}>
          <div className="tooltip-label">{groupName(pauseGroup(hover.pause))} {hover.pause.reason}{hover.pause.induced ? ' (induced)' : ''}{hover.pause.aborted ? ' (aborted)' : ''}</div>
          <table>
            <tbody>
              <tr><th>paused</th><td>{formatNs(hover.pause.durationNs)}</td></tr>
              <tr><th>suspending</th><td>{formatNs(hover.pause.suspendNs)}</td></tr>
              <tr><th>at</th><td>{formatMs(hover.pause.startNs / 1e6)}</td></tr>
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
