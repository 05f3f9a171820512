// When the runtime refuses to load clrscope's profiler but its diagnostics socket answers, the
// same socket still offers an EventPipe session: the runtime's own sample profiler for stacks
// and System.Runtime's EventCounters. This decides whether a failed attach leaves that road open
// and says, in one sentence, why clrscope takes it. No socket at all (DOTNET_EnableDiagnostics=0,
// another user's process, not .NET) leaves nothing to fall back on.

import { HRESULT, describeHresult } from '../../../structs/diagnostics/hresults.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { profilersDisabledBy, readEnviron } from '../diagnostics/proc.js';

/** What clrscope does instead: record stacks, or read counters. */
export type FallbackUse = 'recording' | 'counters';

const INSTEAD: Record<FallbackUse, string> = {
  recording: 'recording with the runtime\'s EventPipe sample profiler instead (CPU time is approximate)',
  counters: 'reading the runtime\'s System.Runtime EventCounters instead (the counters they do not cover stay empty)',
};

/** Why the profiler could not be loaded, as the first half of the sentence. */
async function why(pid: number, hresult: number | undefined): Promise<string> {
  if (hresult !== undefined && (hresult >>> 0) === HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE) {
    return `Process ${pid} already has another profiler loaded, so clrscope cannot load its own`;
  }
  const env = await readEnviron(pid);
  const setting = env === undefined ? undefined : profilersDisabledBy(env);
  if (setting !== undefined) return `Process ${pid} was started with ${setting}, so its runtime would not load clrscope's profiler`;
  return `Process ${pid} did not load clrscope's profiler: ${hresult === undefined ? 'its runtime refused' : describeHresult(hresult)}`;
}

/**
 * The sentence to announce when `err` (from attaching the profiler) leaves the EventPipe road
 * open, e.g. "Process 4242 already has another profiler loaded, so clrscope cannot load its own;
 * recording with the runtime's EventPipe sample profiler instead (CPU time is approximate).";
 * undefined when it does not (no socket, no answer), and the caller reports `err` as before.
 */
export async function fallbackSentence(err: unknown, pid: number, use: FallbackUse): Promise<string | undefined> {
  // Only a refusal the runtime itself sent back proves its diagnostics server is there to ask.
  if (!(err instanceof DiagnosticsError) || err.failure !== 'runtime-error') return undefined;
  return `${await why(pid, err.hresult)}; ${INSTEAD[use]}.`;
}
