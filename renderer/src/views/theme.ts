// What canvases draw with, read from the theme's variables (renderer/theme.css), so the
// canvases follow the system's light or dark setting with the rest of the page and a colour is
// defined once. useCanvasColors re-renders its view when the setting changes.

import { useMemo, useSyncExternalStore } from 'react';
import type { FlameColors } from '../canvas/flame-colors.js';
import type { PauseGroup } from '../state/pause-groups.js';

export interface CanvasColors {
  background: string;
  text: string;
  grid: string;
  selection: string;
  selectionEdge: string;
  marker: string;
  timelineWait: string;
  /** "r, g, b" of the timeline's CPU columns, drawn with an alpha by share. */
  timelineCpu: string;
  timelinePause: string;
  flameText: string;
  flameDimText: string;
  /** Colours of pause groups: generations 0, 1, 2 and the rest. */
  pause: Record<string, string>;
}

const LIGHT = '(prefers-color-scheme: light)';

/** The colours now in force (the variables as the stylesheet resolves them for the current scheme). */
export function canvasColors(): CanvasColors {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string): string => style.getPropertyValue(name).trim();
  return {
    background: v('--canvas-bg'),
    text: v('--canvas-text'),
    grid: v('--canvas-grid'),
    selection: v('--canvas-selection'),
    selectionEdge: v('--canvas-selection-edge'),
    marker: v('--canvas-marker'),
    timelineWait: v('--timeline-wait'),
    timelineCpu: v('--timeline-cpu'),
    timelinePause: v('--timeline-pause'),
    flameText: v('--flame-text'),
    flameDimText: v('--flame-dim-text'),
    pause: { 0: v('--gen0'), 1: v('--gen1'), 2: v('--gen2'), other: v('--other') },
  };
}

/** The flame graph's part of the colours. */
export function flameColors(c: CanvasColors): FlameColors {
  return { background: c.background, text: c.flameText, dimText: c.flameDimText };
}

export function pauseColor(colors: CanvasColors, g: PauseGroup): string {
  return colors.pause[String(g)];
}

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(LIGHT);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** 'light' or 'dark', as the system (or a test's emulation) says now. */
export function colorScheme(): 'light' | 'dark' {
  return window.matchMedia(LIGHT).matches ? 'light' : 'dark';
}

/** The canvas colours of the current scheme; the calling view re-renders when the scheme changes. */
export function useCanvasColors(): CanvasColors {
  const scheme = useSyncExternalStore(subscribe, colorScheme);
  return useMemo(() => { void scheme; return canvasColors(); }, [scheme]);
}
