// When the runtime refuses to load clrscope's profiler because it already has a profiler, its
// diagnostics socket still offers an EventPipe session: the runtime's own sample profiler for
// stacks and System.Runtime's EventCounters. This decides whether a failed attach is that case
// and says, in one sentence, why clrscope takes that road. Any other refusal (clrscope's own
// library failing to load or to initialize, say) is a broken install or a bug the user must
// hear about, not something to paper over with a different kind of recording. No socket at all
// (DOTNET_EnableDiagnostics=0, another user's process, not .NET) leaves nothing to fall back on.

import { HRESULT } from '../../../structs/diagnostics/hresults.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { profilersDisabledBy, readEnviron } from '../diagnostics/proc.js';
import { clrscopeProfilerIn } from '../discovery/discovery.js';
import { UserError } from '../errors/user-error.js';

/** What clrscope does instead: record stacks, or read counters. */
export type FallbackUse = 'recording' | 'counters';

/** What the profiler was attached for: measuring has nothing to fall back on (it rewrites methods). */
export type ProfilerUse = FallbackUse | 'measuring';

const INSTEAD: Record<FallbackUse, string> = {
  recording: 'recording with the runtime\'s EventPipe sample profiler instead (CPU time is approximate)',
  counters: 'reading the runtime\'s System.Runtime EventCounters instead (the counters they do not cover stay empty)',
};

/**
 * Why the profiler could not be loaded, as the first half of a sentence, when `err` (from
 * attaching the profiler) leaves the EventPipe road open: e.g. "Process 4242 already has another
 * profiler loaded, so clrscope cannot load its own". Undefined when it does not, and the caller
 * reports `err` as it is.
 */
export async function refusalReason(err: unknown, pid: number): Promise<string | undefined> {
  // Only a refusal the runtime itself sent back proves its diagnostics server is there to ask.
  if (!(err instanceof DiagnosticsError) || err.failure !== 'runtime-error') return undefined;
  if (err.hresult !== undefined && (err.hresult >>> 0) === HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE) {
    return await clrscopeProfilerIn(pid)
      ? `Process ${pid} already has clrscope's profiler loaded, so clrscope cannot load it a second time`
      : `Process ${pid} already has another profiler loaded, so clrscope cannot load its own`;
  }
  // No HRESULT names this setting, so the process's environment is the evidence that it is why
  // the runtime refused.
  const env = await readEnviron(pid);
  const setting = env === undefined ? undefined : profilersDisabledBy(env);
  if (setting !== undefined) return `Process ${pid} was started with ${setting}, so its runtime would not load clrscope's profiler`;
  return undefined;
}

/** The sentence that announces the fallback, from refusalReason's clause. */
export function fallbackNotice(reason: string, use: FallbackUse): string {
  return `${reason}; ${INSTEAD[use]}.`;
}

/**
 * One sentence for a fallback that could not start either, keeping the reason it was tried:
 * "Process 4242 already has another profiler loaded, so clrscope cannot load its own, and
 * recording through the runtime's EventPipe instead failed too: process 4242 did not start …".
 */
export function fallbackFailedSentence(reason: string, err: DiagnosticsError): string {
  const detail = err.message.trim().replace(/^Process /, 'process ');
  return `${reason}, and recording through the runtime's EventPipe instead failed too: ${/[.!?]$/.test(detail) ? detail : `${detail}.`}`;
}

export type AttachDecision<T> =
  | { kind: 'profiler'; attached: T }
  | { kind: 'eventpipe'; reason: string; notice: string };

export interface AttachDecisionOptions {
  /** False: a refusal is the error it is (`--no-fallback`). Default true; measuring never falls back. */
  fallback?: boolean;
  /** Undoes what the failed attach left behind (its collector, its stream) before anything else is tried. */
  undo?: () => Promise<void>;
}

/**
 * The one place that decides what a failed attach of clrscope's profiler leads to, for every
 * caller (record, counters, measure, the workstation): the attach's result when it worked; when
 * the runtime refused the profiler but its diagnostics socket answers, the reason and the
 * sentence that announce an EventPipe session instead (the caller starts the one it needs); for
 * measuring, which has no such road, one sentence saying why nothing was measured; any other
 * failure is rethrown as it is.
 */
export async function attachOrFallback<T>(pid: number, use: 'measuring', attach: () => Promise<T>, options?: AttachDecisionOptions): Promise<{ kind: 'profiler'; attached: T }>;
export async function attachOrFallback<T>(pid: number, use: FallbackUse, attach: () => Promise<T>, options?: AttachDecisionOptions): Promise<AttachDecision<T>>;
export async function attachOrFallback<T>(pid: number, use: ProfilerUse, attach: () => Promise<T>, options: AttachDecisionOptions = {}): Promise<AttachDecision<T>> {
  try {
    return { kind: 'profiler', attached: await attach() };
  } catch (err) {
    await options.undo?.();
    if (use !== 'measuring' && options.fallback === false) throw err;
    const reason = await refusalReason(err, pid);
    if (reason === undefined) throw err;
    if (use === 'measuring') throw new UserError(`${reason}; measuring needs clrscope's own profiler, so nothing was measured.`);
    return { kind: 'eventpipe', reason, notice: fallbackNotice(reason, use) };
  }
}

/**
 * The sentence to announce when `err` (from attaching the profiler) leaves the EventPipe road
 * open, e.g. "Process 4242 already has another profiler loaded, so clrscope cannot load its own;
 * recording with the runtime's EventPipe sample profiler instead (CPU time is approximate).";
 * undefined when it does not, and the caller reports `err` as before.
 */
export async function fallbackSentence(err: unknown, pid: number, use: FallbackUse): Promise<string | undefined> {
  const reason = await refusalReason(err, pid);
  return reason === undefined ? undefined : fallbackNotice(reason, use);
}
