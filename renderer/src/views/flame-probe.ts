// What the flame view tells the diagnostics hook (diagnostics-hook.ts): which renderer and
// canvas it has mounted, and when each draw issued its pixels. Without the hook installed
// the calls only keep a reference, so production code may call them on every draw.

import type { FlameRenderer } from '../canvas/flame-renderer.js';
import type { FlatTree } from '../worker/protocol.js';

export interface MountedFlame {
  renderer: FlameRenderer;
  canvas: HTMLCanvasElement;
}

/** One draw of the flame canvas: how old the freshest data on screen was (scripts/bench/latency.mjs). */
export interface FlameDraw {
  /** Numbers every draw since the hook was installed, so a poller can tell which it has seen. */
  seq: number;
  /** Unix-epoch ms when draw() had issued the frame's pixels. */
  drawnAtUnixMs: number;
  /** The drawn tree's newestSampleUnixMs; null for an empty tree or none. */
  newestSampleUnixMs: number | null;
}

// A bounded ring: the hook may stay installed through hours of live redraws.
const FLAME_DRAWS_KEPT = 256;
const flameDraws: FlameDraw[] = [];
let flameDrawSeq = 0;
let recordingDraws = false;
let mounted: MountedFlame | null = null;

/** The flame view registers its renderer while it is mounted; call the returned function on unmount. */
export function registerFlame(renderer: FlameRenderer, canvas: HTMLCanvasElement): () => void {
  const handle = { renderer, canvas };
  mounted = handle;
  return () => { if (mounted === handle) mounted = null; };
}

/** The flame view calls this after every draw; until the hook asks for draws it returns at once. */
export function noteFlameDraw(tree: FlatTree | null): void {
  if (!recordingDraws) return;
  flameDraws[flameDrawSeq % FLAME_DRAWS_KEPT] = {
    seq: flameDrawSeq, drawnAtUnixMs: performance.timeOrigin + performance.now(), newestSampleUnixMs: tree?.newestSampleUnixMs ?? null,
  };
  flameDrawSeq++;
}

/** The flame view's renderer and canvas while it is mounted. */
export function mountedFlame(): MountedFlame | null {
  return mounted;
}

/** From now on, draws are kept (the last FLAME_DRAWS_KEPT). */
export function recordFlameDraws(): void {
  recordingDraws = true;
}

/** The kept draws, oldest first. */
export function keptFlameDraws(): FlameDraw[] {
  return [...flameDraws].sort((a, b) => a.seq - b.seq);
}
