// `record --requests-rate all|N`: how many requests a second the profiler may hear before it
// listens only part of each second (PROTOCOL.md, REQUEST_WINDOW). It only means something with
// --requests, and the profiler falls back to its default budget on a value it cannot read, so a
// bad one is refused here, where the user still hears why.

import { UserError } from '../services/errors/user-error.js';
import type { RequestsRate } from '../services/profiler/profiler-env.js';

/** The most a budget may be: the profiler's own limit (core/profiler_config.cpp). */
export const MAX_REQUESTS_RATE = 1_000_000;

/** --requests-rate's value, undefined when not given (the profiler's default budget). */
export function requestsRateOption(value: string | undefined, requests: boolean): RequestsRate | undefined {
  if (value === undefined) return undefined;
  if (!requests) throw new UserError('--requests-rate sets how many HTTP requests a second --requests records: give it with --requests.');
  if (value === 'all') return 'all';
  if (value.trim() === '') throw new UserError('--requests-rate needs all or a number of requests a second; it was given an empty one.');
  const n = /^\d{1,7}$/.test(value) ? Number(value) : 0;
  if (n >= 1 && n <= MAX_REQUESTS_RATE) return n;
  throw new UserError(`--requests-rate takes all or a whole number of requests a second from 1 to 1000000, not '${value}'.`);
}
