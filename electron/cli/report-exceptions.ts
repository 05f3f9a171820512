// `clrscope report FILE --exceptions`: the exceptions by the method where each one started (each
// thrown object once; structs/profile/exception-origins.ts), with their rethrow paths, as text or
// as `{"exceptions":{...}}` (README, report --exceptions).

import { exceptionOrigins, pathText, thrownExceptions, type ExceptionOrigin } from '../../structs/profile/exception-origins.js';
import { totalsByLabel } from '../../structs/profile/event-metrics.js';
import type { Recording } from '../../structs/profile/recording.js';
import { count, counted } from '../../structs/text/count.js';

export interface ExceptionsReport {
  exceptions: {
    /** Throws, rethrows and those over the stack budget included, as the runtime counts them. */
    thrown: number;
    /** Exceptions with a stack, each thrown object once. */
    exceptions: number;
    /** Their rethrows. */
    rethrows: number;
    /** Throws without a stack (over the profiler's stack budget): counted by type only. */
    withoutStack: number;
    origins: ExceptionOrigin[];
  };
}

export function exceptionsReport(rec: Recording): ExceptionsReport {
  const thrown = totalsByLabel(rec, 'exceptions').reduce((n, t) => n + t.value, 0);
  const all = thrownExceptions(rec);
  const rethrows = all.reduce((n, x) => n + x.rethrownAt.length, 0);
  return {
    exceptions: {
      thrown,
      exceptions: all.length,
      rethrows,
      withoutStack: Math.max(0, thrown - all.length - rethrows),
      origins: exceptionOrigins(rec, all),
    },
  };
}

/** The origins as text: a line per method where exceptions started, its types, its rethrow paths. */
export function exceptionsText(rec: Recording, file: string): string[] {
  const r = exceptionsReport(rec).exceptions;
  if (r.thrown === 0) return [`${file} has no exceptions: none was thrown, or it was recorded with --exceptions off.`];
  const lines = [
    `${counted(r.thrown, 'throw')}: ${counted(r.exceptions, 'exception')} with a stack, ${counted(r.rethrows, 'rethrow')} of them` +
      (r.withoutStack > 0 ? `, ${count(r.withoutStack)} without a stack (over the stack budget, counted by type only)` : '') + '.',
    'By the method where each exception was first thrown:',
    ' exceptions  rethrows  method',
  ];
  for (const o of r.origins) {
    lines.push(`${count(o.exceptions).padStart(11)} ${count(o.rethrows).padStart(9)}  ${o.method}`);
    lines.push(`${' '.repeat(23)}${o.types.map((t) => `${t.type === '' ? '(unnamed)' : t.type} ${count(t.count)}`).join(', ')}`);
    if (o.originNotSeen > 0) lines.push(`${' '.repeat(23)}${count(o.originNotSeen)} first seen here, their first throw not recorded`);
    for (const p of o.paths) lines.push(`${' '.repeat(23)}${count(p.count).padStart(6)}  ${pathText(p)}`);
  }
  return lines;
}
