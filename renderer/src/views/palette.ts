// Colours drawn on canvas; styles.css uses the same values for the legends (.swatch.gen0 …).

import type { PauseGroup } from '../state/pause-groups.js';

export const PAUSE_COLORS: Record<string, string> = {
  0: '#4fb47a',
  1: '#e0a43a',
  2: '#e5534b',
  other: '#8f86e8',
};

export function pauseColor(g: PauseGroup): string {
  return PAUSE_COLORS[String(g)];
}

export const CANVAS_TEXT = '#9aa4b2';
export const CANVAS_GRID = '#2a313c';
export const CANVAS_SELECTION = 'rgba(86, 156, 214, 0.22)';
export const CANVAS_SELECTION_EDGE = '#569cd6';
