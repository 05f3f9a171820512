// How following a session ends, for every command that records, measures or watches until told
// otherwise: the session's own end (the program exited, the process let go), the duration the
// user gave, or an interrupt (Ctrl-C). Written once so `record`, `record --pid` and `measure`
// stop for the same reasons at the same moments.

export type FollowEnd = 'ended' | 'duration' | 'interrupted';

export interface FollowLimits {
  /** Stop this long after following began; none: follow until the end or an interrupt. */
  durationMs?: number;
  /** Aborting stops following as Ctrl-C does; a signal aborted already stops it at once. */
  signal?: AbortSignal;
}

/** Waits for `ended`, the duration or an abort, whichever comes first, and says which; leaves no timer or listener behind. */
export async function followUntil(ended: Promise<unknown>, limits: FollowLimits): Promise<FollowEnd> {
  const { signal, durationMs } = limits;
  if (signal?.aborted === true) return 'interrupted';
  let onAbort: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stops: Promise<FollowEnd>[] = [ended.then(() => 'ended' as const)];
  if (signal !== undefined) stops.push(new Promise((resolve) => { onAbort = () => resolve('interrupted'); signal.addEventListener('abort', onAbort, { once: true }); }));
  if (durationMs !== undefined) stops.push(new Promise((resolve) => { timer = setTimeout(() => resolve('duration'), Math.max(0, durationMs)); }));
  try {
    return await Promise.race(stops);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}
