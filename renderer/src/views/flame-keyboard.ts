// The flame graph's keys (the help overlay lists them, shortcuts-help.tsx): arrows and +/- move
// the zoom (canvas/flame-keys.ts), n and N go to the next and previous search match, / goes to
// the search box (Enter there: the next match), Backspace goes back to the zoom before, 0 or
// Home zooms out whole. Keys typed into a field are the field's.

import { useEffect, useRef } from 'react';
import { labelMatcher, parseSearch } from '../canvas/flame-layout.js';
import { matchedFrames, moveFrom, moveOfKey, nextMatch, nodeOfPath } from '../canvas/flame-keys.js';
import { NOT_ZOOMED, labelPath, sameZoom, type ZoomPath } from '../canvas/flame-zoom.js';
import type { FlatTree } from '../worker/protocol.js';

interface Keyed {
  tree(): FlatTree | null;
  zoom: ZoomPath;
  search: string;
  inverted: boolean;
  setZoom(path: ZoomPath): void;
}

function typingIn(target: EventTarget | null): HTMLElement | null {
  const el = target as HTMLElement | null;
  return el !== null && (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA') ? el : null;
}

/** Listens for the flame graph's keys while the view is shown; returns `zoomTo`, which keeps the history Backspace walks back. */
export function useFlameKeys(k: Keyed): (path: ZoomPath) => void {
  const latest = useRef(k);
  latest.current = k;
  const history = useRef<ZoomPath[]>([]);
  const zoomTo = (path: ZoomPath): void => {
    const now = latest.current.zoom;
    if (sameZoom(now, path)) return;
    history.current.push(now);
    if (history.current.length > 100) history.current.shift();
    latest.current.setZoom(path);
  };
  const zoomRef = useRef(zoomTo);
  zoomRef.current = zoomTo;

  useEffect(() => {
    const toMatch = (step: 1 | -1): void => {
      const { tree: treeOf, search, zoom } = latest.current;
      const tree = treeOf();
      const query = parseSearch(search);
      if (tree === null || query === null) return;
      const next = nextMatch(matchedFrames(tree, labelMatcher(query)), nodeOfPath(tree, zoom), step);
      if (next >= 0) zoomRef.current(labelPath(tree, next));
    };
    const onKey = (e: KeyboardEvent): void => {
      const field = typingIn(e.target);
      if (field !== null) {
        if (field.dataset.testid === 'flame-search' && e.key === 'Enter') {
          e.preventDefault();
          toMatch(e.shiftKey ? -1 : 1);
        }
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const { tree: treeOf, zoom, inverted } = latest.current;
      const tree = treeOf();
      if (e.key === '/') {
        e.preventDefault();
        document.querySelector<HTMLInputElement>('[data-testid="flame-search"]')?.focus();
        return;
      }
      if (e.key === 'n' || e.key === 'N') return toMatch(e.key === 'n' ? 1 : -1);
      if (e.key === 'Backspace') {
        e.preventDefault();
        const back = history.current.pop();
        if (back !== undefined) latest.current.setZoom(back);
        return;
      }
      if (e.key === '0' || e.key === 'Home') return zoomRef.current(NOT_ZOOMED);
      const move = moveOfKey(e.key, inverted);
      if (move === null || tree === null) return;
      e.preventDefault();
      zoomRef.current(labelPath(tree, moveFrom(tree, nodeOfPath(tree, zoom), move)));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return zoomTo;
}
