// The shapes of speedscope's file format (https://www.speedscope.app/file-format-schema.json),
// written from its published schema: which fields exist and which are required.

export const SPEEDSCOPE_SCHEMA_URL = 'https://www.speedscope.app/file-format-schema.json';

export type SpeedscopeUnit = 'none' | 'nanoseconds' | 'microseconds' | 'milliseconds' | 'seconds' | 'bytes';

export const SPEEDSCOPE_UNITS: readonly SpeedscopeUnit[] = ['none', 'nanoseconds', 'microseconds', 'milliseconds', 'seconds', 'bytes'];

export interface SpeedscopeFrame {
  name: string;
  file?: string;
  line?: number;
  col?: number;
}

export interface SpeedscopeSampledProfile {
  type: 'sampled';
  name: string;
  unit: SpeedscopeUnit;
  startValue: number;
  endValue: number;
  /** Stacks as indexes into shared.frames, root first. */
  samples: number[][];
  /** One weight per sample, in `unit`. */
  weights: number[];
}

export interface SpeedscopeEvent {
  /** 'O' opens a frame, 'C' closes it; opens and closes nest. */
  type: 'O' | 'C';
  /** In `unit`, non-decreasing through the list. */
  at: number;
  frame: number;
}

export interface SpeedscopeEventedProfile {
  type: 'evented';
  name: string;
  unit: SpeedscopeUnit;
  startValue: number;
  endValue: number;
  events: SpeedscopeEvent[];
}

export type SpeedscopeProfile = SpeedscopeSampledProfile | SpeedscopeEventedProfile;

export interface SpeedscopeFile {
  $schema: typeof SPEEDSCOPE_SCHEMA_URL;
  shared: { frames: SpeedscopeFrame[] };
  profiles: SpeedscopeProfile[];
  name?: string;
  activeProfileIndex?: number;
  exporter?: string;
}

/** Nanoseconds per unit for the time units; undefined for bytes and none. */
export function nanosecondsPer(unit: SpeedscopeUnit): number | undefined {
  switch (unit) {
    case 'nanoseconds': return 1;
    case 'microseconds': return 1e3;
    case 'milliseconds': return 1e6;
    case 'seconds': return 1e9;
    default: return undefined;
  }
}
