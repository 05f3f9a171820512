// How numbers read in the views: times from nanoseconds, sizes from bytes, compact counts.

import type { CounterUnit } from '../state/counter-charts.js';
import { eventMetricInfo, isEventMetric } from '../../../structs/profile/event-metrics.js';
import type { FlameMetric } from '../worker/protocol.js';

export function formatNs(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 60e9) return `${(ns / 60e9).toFixed(1)} min`;
  if (abs >= 1e9) return `${(ns / 1e9).toFixed(abs >= 10e9 ? 1 : 2)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(abs >= 10e6 ? 1 : 2)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(abs >= 10e3 ? 0 : 1)} µs`;
  return `${Math.round(ns)} ns`;
}

export function formatMs(ms: number): string {
  return formatNs(ms * 1e6);
}

export function formatBytes(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (abs >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (abs >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${Math.round(n)} B`;
}

export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (Math.abs(n) >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

export function formatPercent(share: number): string {
  const p = share * 100;
  return `${p >= 10 || p === 0 ? p.toFixed(1) : p.toFixed(2)}%`;
}

export function formatCounter(value: number | null, unit: CounterUnit): string {
  if (value === null) return '–';
  switch (unit) {
    case 'bytes': return formatBytes(value);
    case 'bytes-per-second': return `${formatBytes(value)}/s`;
    case 'percent': return `${value.toFixed(1)}%`;
    case 'per-second': return `${formatCount(value)}/s`;
    case 'count': return formatCount(value);
  }
}

/** A flame graph value as text: time for CPU, wall and lock wait, bytes or a count for the other event types. */
export function formatMetricValue(metric: FlameMetric, v: number): string {
  if (!isEventMetric(metric)) return formatNs(v);
  const unit = eventMetricInfo(metric).unit;
  if (unit === 'nanoseconds') return formatNs(v);
  if (unit === 'bytes') return formatBytes(v);
  return formatCount(Math.round(v));
}
