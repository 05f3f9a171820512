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

/** What clrscope does instead: record stacks, or read counters. */
export type FallbackUse = 'recording' | 'counters';

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
