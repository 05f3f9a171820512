// A canvas drawn at its CSS width: the width follows the element as the layout resizes it,
// starting at `initial` until the first measurement (the timelines draw one bucket or tick
// per pixel, so they redraw when it changes).

import { useEffect, useRef, useState, type RefObject } from 'react';

export function useCanvasWidth(initial: number): { canvasRef: RefObject<HTMLCanvasElement | null>; width: number } {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null) return;
    const observer = new ResizeObserver(() => setWidth(canvas.clientWidth));
    observer.observe(canvas);
    return () => observer.disconnect();
  }, []);
  return { canvasRef, width };
}
