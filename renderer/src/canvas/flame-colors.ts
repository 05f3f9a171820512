// Colours of flame graph frames: the kind picks the hue family (managed warm, native blue,
// synthetic grey, threads purple) and the name picks a shade within it, so a method keeps its
// colour across refreshes, zooms and sessions. Shades come from a small fixed palette so a
// frame is drawn with one fill per palette entry rather than one per frame.

/** Shades per kind; a name hashes to one of them. */
export const SHADES = 16;
export const KIND_COUNT = 4;
/** Palette entry for runs of frames too narrow to draw one by one. */
export const RUN_COLOR = KIND_COUNT * SHADES;
/** Palette entry for frames matching the search. */
export const MATCH_COLOR = RUN_COLOR + 1;
/**
 * Shades of a differential flame graph, from the largest decrease (blue, 0) through no change
 * (grey, DIFF_SHADES >> 1) to the largest increase (red, DIFF_SHADES - 1).
 */
export const DIFF_SHADES = 21;
export const DIFF_BASE = MATCH_COLOR + 1;
export const PALETTE_SIZE = DIFF_BASE + DIFF_SHADES;

/**
 * The diff shade of a change: its size relative to the largest change shown, on a square-root
 * scale so small changes are still told apart from none; |delta| below `noise` is no change.
 */
export function diffShade(delta: number, maxAbs: number, noise = 0): number {
  const mid = DIFF_SHADES >> 1;
  if (maxAbs <= 0 || Math.abs(delta) <= noise) return mid;
  const step = Math.max(1, Math.round(Math.sqrt(Math.min(1, Math.abs(delta) / maxAbs)) * mid));
  return delta > 0 ? mid + step : mid - step;
}

/** Background, label text, and label text of frames a search does not match. */
export interface FlameColors {
  background: string;
  text: string;
  dimText: string;
}

export interface FlamePalette {
  /** CSS colours by palette index. */
  normal: string[];
  /** The same entries washed out: frames that do not match an active search. */
  dimmed: string[];
}

interface HueFamily {
  hue: number;
  hueSpread: number;
  saturation: number;
  lightness: number;
}

// Index = labelKind: 0 managed, 1 native, 2 synthetic, 3 thread.
const FAMILIES: HueFamily[] = [
  { hue: 8, hueSpread: 44, saturation: 78, lightness: 60 },
  { hue: 190, hueSpread: 36, saturation: 55, lightness: 66 },
  { hue: 0, hueSpread: 0, saturation: 0, lightness: 72 },
  { hue: 262, hueSpread: 30, saturation: 45, lightness: 68 },
];

export function buildPalette(): FlamePalette {
  const normal: string[] = [];
  const dimmed: string[] = [];
  for (const f of FAMILIES) {
    for (let s = 0; s < SHADES; s++) {
      const hue = Math.round(f.hue + (f.hueSpread * s) / (SHADES - 1));
      // Alternate lightness a little so neighbouring shades of one hue stay distinguishable.
      const light = f.lightness + ((s % 3) - 1) * 4;
      normal.push(hslToHex(hue, f.saturation, light));
      dimmed.push(hslToHex(hue, f.saturation * 0.25, 88));
    }
  }
  normal.push(hslToHex(0, 0, 80));
  dimmed.push(hslToHex(0, 0, 90));
  normal.push(hslToHex(300, 85, 58));
  dimmed.push(hslToHex(300, 85, 58));
  const mid = DIFF_SHADES >> 1;
  for (let s = 0; s < DIFF_SHADES; s++) {
    const strength = Math.abs(s - mid) / mid;
    const hue = s < mid ? 215 : 2;
    const color = s === mid ? hslToHex(0, 0, 74) : hslToHex(hue, 25 + 60 * strength, 80 - 18 * strength);
    normal.push(color);
    dimmed.push(hslToHex(hue, 10, 88));
  }
  return { normal, dimmed };
}

/** `#rrggbb` for an HSL colour (hue in degrees, saturation and lightness in %); hex is the cheapest colour for a canvas to parse. */
export function hslToHex(hue: number, saturation: number, lightness: number): string {
  const s = saturation / 100;
  const l = lightness / 100;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number): string => {
    const k = (n + hue / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255).toString(16).padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/** FNV-1a over UTF-16 code units: cheap, and stable across runs and machines. */
export function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Palette index of a frame: its kind's family, the shade its name hashes to. */
export function paletteIndex(name: string, kind: number): number {
  const family = kind >= 0 && kind < KIND_COUNT ? kind : 2;
  return family * SHADES + (nameHash(name) % SHADES);
}
