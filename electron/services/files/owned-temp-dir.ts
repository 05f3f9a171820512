// Temporary folders of a running clrscope (the collector's socket folder, the .etlx converter's
// folder) are removed when it ends, but a clrscope killed with SIGKILL cannot remove anything,
// and its folder would stay in the temp folder for good. So each such folder's name says whose
// it is, the pid and that process's start time (a pid alone may name another process by the
// time anyone looks), and whoever makes one first removes this user's folders whose owner is
// gone. The start time is field 22 of /proc/PID/stat (clock ticks after boot); without /proc
// (Windows) it is 0 and the pid alone is asked.
//
// An abstract Unix socket would leave nothing behind, but it has no file permissions: keeping
// other users off it needs the peer's credentials (SO_PEERCRED), which Node's sockets do not give.

import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** clrscope-[kind-]PID-START-XXXXXX: mkdtemp's six random characters last. */
const NAME = /^clrscope-(?:[a-z]+-)?(\d+)-(\d+)-[A-Za-z0-9]{6}$/;

type StartTime = { start: string } | 'gone' | 'unknown';

/** A process's start time from /proc/PID/stat: 'gone' when there is no such process, 'unknown' without /proc. */
export function startTimeOf(pid: number): StartTime {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return procMounted() ? 'gone' : 'unknown';
    return 'unknown';
  }
  // The command name (field 2) is in parentheses and may hold spaces and ')': count from the last one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3, the state.
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? { start } : 'unknown';
}

let procChecked: boolean | undefined;
function procMounted(): boolean {
  if (procChecked === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procChecked = true;
    } catch {
      procChecked = false;
    }
  }
  return procChecked;
}

let ownStartTime: string | undefined;
function ownStart(): string {
  if (ownStartTime === undefined) {
    const own = startTimeOf(process.pid);
    ownStartTime = typeof own === 'object' ? own.start : '0';
  }
  return ownStartTime;
}

/** Whether the clrscope that made a folder named for (pid, start) has ended; undecided counts as alive. */
export function ownerGone(pid: number, start: string): boolean {
  const now = startTimeOf(pid);
  if (typeof now === 'object') return start !== '0' && now.start !== start;
  if (now === 'gone') return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes the folders in `root` that a clrscope of this user made (named as above, a real
 * folder, owned by this user) and whose owner has ended. Returns their paths. Never throws: a
 * folder that cannot be removed now is tried again next time.
 */
export async function removeStaleTempDirs(root = tmpdir(), onlyKind?: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const me = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (m === null || (onlyKind !== undefined && !name.startsWith(`clrscope-${onlyKind}-`))) continue;
    const path = join(root, name);
    try {
      const s = await lstat(path);
      if (!s.isDirectory() || (me !== undefined && s.uid !== me)) continue;
      if (!ownerGone(Number(m[1]), m[2])) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Gone meanwhile (another clrscope swept it), or not ours to remove.
    }
  }
  return removed;
}

/**
 * A fresh folder, mode 0700, in `root` named for this process (`kind` tells folders apart for
 * whoever reads the temp folder); stale folders of ended clrscopes are removed first. `sweep`
 * 'kind': only those of the same kind, for a root in another pid namespace (a container's /tmp
 * through /proc/PID/root), where the pids in other clrscopes' folder names are not ours to ask.
 */
export async function ownedTempDir(kind?: string, root = tmpdir(), sweep: 'all' | 'kind' = 'all'): Promise<string> {
  await removeStaleTempDirs(root, sweep === 'kind' ? kind : undefined);
  const dir = await mkdtemp(join(root, `clrscope-${kind === undefined ? '' : `${kind}-`}${process.pid}-${ownStart()}-`));
  // mkdtemp already uses 0700; say so explicitly since what the folder holds is private.
  await chmod(dir, 0o700);
  return dir;
}

/**
 * ownedTempDir for callers that cannot wait (a launch's environment is built synchronously):
 * the same name, so a later clrscope's sweep removes it if this one is killed; no sweep here.
 */
export function ownedTempDirSync(kind: string, root = tmpdir()): string {
  const dir = mkdtempSync(join(root, `clrscope-${kind}-${process.pid}-${ownStart()}-`));
  chmodSync(dir, 0o700);
  return dir;
}
