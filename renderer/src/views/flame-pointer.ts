// The mouse over a canvas the flame renderer draws (the flame graph, the sandwich's halves,
// the diff): which node is under it, by the renderer's own hit test, and the hover outline
// with where a tooltip goes. Both flame views use these, so they answer the mouse alike.

import type { MouseEvent } from 'react';
import type { FlameRenderer } from '../canvas/flame-renderer.js';

/** The node under the pointer (-1: none). */
export function nodeUnderPointer(renderer: FlameRenderer | null, e: MouseEvent<HTMLCanvasElement>): number {
  const rect = e.currentTarget.getBoundingClientRect();
  return renderer?.hit(e.clientX - rect.left, e.clientY - rect.top) ?? -1;
}

/** Where the pointer is over `box`, in CSS pixels from its top-left corner, and the box's size. */
export interface PointerInBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function pointerInBox(box: HTMLElement, e: MouseEvent): PointerInBox {
  const rect = box.getBoundingClientRect();
  return { x: e.clientX - rect.left, y: e.clientY - rect.top, width: rect.width, height: rect.height };
}

/** Outlines the node under the pointer; returns it with the pointer's place in `box`, or null over empty space. */
export function hoverUnderPointer(renderer: FlameRenderer | null, box: HTMLElement | null, e: MouseEvent<HTMLCanvasElement>): ({ node: number } & PointerInBox) | null {
  const node = nodeUnderPointer(renderer, e);
  renderer?.setHover(node);
  if (node < 0 || box === null) return null;
  return { node, ...pointerInBox(box, e) };
}
