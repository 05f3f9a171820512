// Attaching clrscope's profiler to a running .NET process for a session: the settings travel as
// the attach command's client data (session/profiled-attach.ts), the request goes over the
// runtime's diagnostics IPC. Not attachProfiled() itself: it returns once the stream has begun,
// and a session must see every byte from the first, so the session's collector is its own.

import { attachProfiler } from '../diagnostics/client.js';
import { appNameFromArgv, displayName, processExists, readCmdline, readStat } from '../diagnostics/proc.js';
import { attachClientData } from '../session/profiled-attach.js';
import { PROFILER_CLSID } from '../session/profiler-env.js';
import { UserError } from '../session/user-error.js';

/** "Scenarios": an attached process's label; the views add its pid (sessionTitle), so the label does not repeat it. */
export async function describeAttachTarget(pid: number): Promise<string> {
  if (process.platform === 'linux' && !(await processExists(pid))) throw new UserError(`There is no process with pid ${pid}.`);
  const argv = await readCmdline(pid);
  return appNameFromArgv(argv) ?? displayName(await readStat(pid), argv, pid);
}

export interface AttachSettings {
  socketPath: string;
  /** The collector's secret when it listens on loopback TCP. */
  secret?: string;
  intervalMs: number;
  wall: boolean;
  /** Async call stacks (client data async=1). */
  async?: boolean;
}

/** Asks the runtime of `pid` to load the profiler, streaming to `socketPath`; a DiagnosticsError (one sentence) when it will not. */
export async function requestAttach(pid: number, libraryPath: string, settings: AttachSettings): Promise<void> {
  const clientData = attachClientData(settings.socketPath, settings.intervalMs, true, settings.wall, settings.secret) + (settings.async === true ? 'async=1\n' : '');
  await attachProfiler(pid, { clsid: PROFILER_CLSID, path: libraryPath, clientData });
}
