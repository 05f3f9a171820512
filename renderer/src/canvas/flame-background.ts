// The flame graph's background, painted only where no frame will cover it: at a high device
// pixel ratio without a GPU the time goes to rasterizing pixels, and filling the whole
// canvas first would double the pixels rasterized under the frames.

import type { FramePlan } from './flame-layout.js';

/** A frame's plan in whole device pixels (flame-renderer.ts snapToDevicePixels): x0/x1 per rectangle; per row its top (rowY), the bottom of its frames (frameY) and its end (rowEnd). */
export interface DevicePlan {
  x0: Int32Array;
  x1: Int32Array;
  rowY: Int32Array;
  frameY: Int32Array;
  rowEnd: Int32Array;
}

// A row with more frames than this gets one background fill under all of them.
const WHOLE_ROW_ITEMS = 24;

/**
 * Paints the area beyond the deepest row, each row's one-pixel bottom gap, and the gaps
 * between a row's frames. A row of many small frames is mostly gaps, though, and one fill
 * of the whole row costs less there than one fill per gap.
 */
export function paintBackground(
  ctx: CanvasRenderingContext2D, plan: FramePlan, px: DevicePlan, width: number, height: number, inverted: boolean, background: string,
): void {
  const rows = plan.maxDepth + 1;
  const { x0, x1, rowY, frameY, rowEnd } = px;
  ctx.fillStyle = background;
  // Outside the band of rows: above the deepest row (flame) or below it (icicle).
  if (inverted) {
    if (rowEnd[rows - 1] < height) ctx.fillRect(0, rowEnd[rows - 1], width, height - rowEnd[rows - 1]);
  } else if (rowY[rows - 1] > 0) {
    ctx.fillRect(0, 0, width, rowY[rows - 1]);
  }
  const items = new Int32Array(rows);
  for (let k = 0; k < plan.count; k++) items[plan.depth[k]]++;
  // cursor[d]: where row d's painted part ends; -1 marks a row filled whole.
  const cursor = new Int32Array(rows);
  for (let d = 0; d < rows; d++) {
    if (items[d] > WHOLE_ROW_ITEMS) {
      ctx.fillRect(0, rowY[d], width, rowEnd[d] - rowY[d]);
      cursor[d] = -1;
    } else if (rowEnd[d] > frameY[d]) {
      // The row's last CSS pixel is a gap between it and the row beneath.
      ctx.fillRect(0, frameY[d], width, rowEnd[d] - frameY[d]);
    }
  }
  for (let k = 0; k < plan.count; k++) {
    const d = plan.depth[k];
    const at = cursor[d];
    if (at < 0) continue;
    if (x0[k] > at) ctx.fillRect(at, rowY[d], x0[k] - at, frameY[d] - rowY[d]);
    if (x1[k] > at) cursor[d] = x1[k];
  }
  for (let d = 0; d < rows; d++) {
    if (cursor[d] >= 0 && cursor[d] < width) ctx.fillRect(cursor[d], rowY[d], width - cursor[d], frameY[d] - rowY[d]);
  }
}
