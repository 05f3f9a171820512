// What the workstation calls a process it attaches to. The attach itself is the recording
// engine's (recording/profiled-attach.ts, requestAttach), the same request `clrscope record --pid` sends.

import { appNameFromArgv, displayName, processExists, readCmdline, readStat } from '../diagnostics/proc.js';
import { UserError } from '../errors/user-error.js';

/** "Scenarios": an attached process's label; the views add its pid (sessionTitle), so the label does not repeat it. */
export async function describeAttachTarget(pid: number): Promise<string> {
  if (process.platform === 'linux' && !(await processExists(pid))) throw new UserError(`There is no process with pid ${pid}.`);
  const argv = await readCmdline(pid);
  return appNameFromArgv(argv) ?? displayName(await readStat(pid), argv, pid);
}
