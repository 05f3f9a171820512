// clrscope's own cost in the profiled process (PROTOCOL.md, STATS): the one sentence the CLI's
// summary, `report` and the workstation's status bar say about it, and its sum over processes.

import { OWN_COST_FIELDS, type OwnCost } from '../wire/records.js';

/** The parts of clrscope's own time, as named to the user, in the order they are listed. */
export const OWN_COST_PARTS: readonly { key: Exclude<keyof OwnCost, 'processCpuNs'>; label: string }[] = [
  { key: 'handlerNs', label: 'handler' },
  { key: 'samplerNs', label: 'sampler' },
  { key: 'symbolsNs', label: 'symbols' },
  { key: 'runtimeEventsNs', label: 'runtime events' },
  { key: 'eventStacksNs', label: 'event stacks' },
  { key: 'callbacksNs', label: 'callbacks' },
  { key: 'writerNs', label: 'writer' },
];

/** All of clrscope's own time: its parts' sum. */
export function ownCostTotalNs(c: OwnCost): number {
  return OWN_COST_PARTS.reduce((n, p) => n + c[p.key], 0);
}

/** The program's own CPU: the process's, less clrscope's share of it (never below 0). */
export function programCpuNs(c: OwnCost): number {
  return Math.max(0, c.processCpuNs - ownCostTotalNs(c));
}

/** clrscope's share against the program's own CPU, in percent; undefined when the program used none. */
export function ownCostPercent(c: OwnCost): number | undefined {
  const program = programCpuNs(c);
  return program > 0 ? (100 * ownCostTotalNs(c)) / program : undefined;
}

/** Several processes' costs (record --children), part by part; undefined when none has one. */
export function sumOwnCosts(costs: readonly (OwnCost | undefined)[]): OwnCost | undefined {
  const present = costs.filter((c): c is OwnCost => c !== undefined);
  if (present.length === 0) return undefined;
  const sum = {} as OwnCost;
  for (const key of OWN_COST_FIELDS) sum[key] = present.reduce((n, c) => n + c[key], 0);
  return sum;
}

function ms(ns: number): string {
  const v = ns / 1e6;
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** "X ms CPU = Y% of the program's CPU (handler a, sampler b, ...)", without a leading subject. */
export function ownCostText(c: OwnCost): string {
  const pct = ownCostPercent(c);
  const parts = OWN_COST_PARTS.map((p) => `${p.label} ${ms(c[p.key])}`).join(', ');
  return `${ms(ownCostTotalNs(c))} ms CPU = ${pct === undefined ? '?' : pct.toFixed(1)}% of the program's CPU (${parts})`;
}

/** The summary's and report's line. */
export function ownCostLine(c: OwnCost): string {
  return `clrscope's own cost: ${ownCostText(c)}.`;
}
