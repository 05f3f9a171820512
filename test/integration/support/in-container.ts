// Starts a test target in namespaces of its own, as a container runs it: `unshare --mount --pid
// --fork --mount-proc` with private tmpfs mounts on /tmp and /dev/shm, so its diagnostics socket
// and anything placed in its temp folder are out of the host's sight except through
// /proc/PID/root, and its pid inside (1) is not its host pid. Needs root (the tests run as root).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { ROOT } from './paths.js';

// The repository, when it lies under /tmp (a fresh clone often does): the target, the profiler and
// clrscope are run from it, so the container's own /tmp keeps it in sight at the same path.
const KEPT = ROOT.startsWith('/tmp/') ? ROOT : undefined;

/** What the container's /tmp holds of the host's (the repository's top folder), for tests that list what is left there. */
export function keptTmpEntry(): string | undefined {
  return KEPT?.split('/')[2];
}

/** Names in the container's /tmp that start with "clrscope", the repository's own folder aside. */
export function clrscopeLeftovers(hostPid: number): string[] {
  return readdirSync(`/proc/${hostPid}/root/tmp`).filter((name) => name.startsWith('clrscope') && name !== keptTmpEntry());
}

export interface ContainedTarget {
  child: ChildProcess;
  /** The target's pid on the host. */
  hostPid: number;
  /** Its pid in its own pid namespace, as it printed it. */
  nsPid: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  kill(): void;
}

/** Whether this machine lets us make the namespaces (root, and unshare present). */
export function unshareWorks(): boolean {
  const r = spawnSync('unshare', ['--mount', '--pid', '--fork', '--mount-proc', 'sh', '-c', 'mount -t tmpfs tmpfs /tmp && test "$$" = 1'], { encoding: 'utf8' });
  return r.status === 0;
}

function childOf(parent: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      if (new RegExp(`^PPid:\\s+${parent}$`, 'm').test(status)) return Number(name);
    } catch {
      // gone
    }
  }
  return undefined;
}

/** The host pid of the process that is `nsPid` in the pid namespace of host process `member`. */
function hostPidOf(nsPid: number, member: number): number | undefined {
  const ns = readlinkSync(`/proc/${member}/ns/pid`);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) !== ns) continue;
      const m = /^NSpid:.*\s(\d+)$/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'));
      if (m !== null && Number(m[1]) === nsPid) return Number(name);
    } catch {
      // gone
    }
  }
  return undefined;
}

export interface ContainerOptions {
  /** Shell run inside before the target, after the mounts. */
  setup?: string;
  /** Added to the target's environment. */
  env?: NodeJS.ProcessEnv;
  /** A command the target is started under inside (e.g. clrscope record ... --). */
  launcher?: readonly string[];
}

/**
 * Runs `dotnet DLL ARGS` as pid 1 of a new pid namespace (or under `launcher`, then a later pid)
 * with its own /tmp and /dev/shm, and resolves once it printed READY.
 */
export async function startInContainer(dll: string, args: readonly string[], options: ContainerOptions = {}): Promise<ContainedTarget> {
  const setup = options.setup ?? '';
  // A repository under /tmp is bound aside (on a tmpfs over /mnt) before /tmp is covered, then moved back to its path.
  const keep = KEPT === undefined ? '' : 'mount -t tmpfs tmpfs /mnt && mkdir /mnt/keep && mount --bind "$CLRSCOPE_TEST_KEEP" /mnt/keep && ';
  const restore = KEPT === undefined ? '' : ' && mkdir -p "$CLRSCOPE_TEST_KEEP" && mount --move /mnt/keep "$CLRSCOPE_TEST_KEEP" && umount /mnt';
  const script = `${keep}mount -t tmpfs -o mode=1777 tmpfs /tmp${restore} && mount -t tmpfs -o mode=1777 tmpfs /dev/shm${setup === '' ? '' : ` && ${setup}`} && exec "$@"`;
  // Its own TMPDIR would point into the host's folders, which it still sees: a container has none of ours.
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, ...(KEPT === undefined ? {} : { CLRSCOPE_TEST_KEEP: KEPT }) };
  delete env.TMPDIR;
  const command = [...(options.launcher ?? []), 'dotnet', dll, ...args];
  const child = spawn('unshare', ['--mount', '--pid', '--fork', '--kill-child', '--mount-proc', 'sh', '-c', script, 'sh', ...command], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + 30000;
  let m: RegExpExecArray | null = null;
  while ((m = /^READY (\{.*\})$/m.exec(out)) === null && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  if (m === null) {
    child.kill('SIGKILL');
    throw new Error(`the contained target never printed READY:\n${out}\n${err}`);
  }
  const nsPid = (JSON.parse(m[1]) as { pid: number }).pid;
  const first = childOf(child.pid ?? 0);
  const hostPid = first === undefined ? undefined : hostPidOf(nsPid, first);
  if (hostPid === undefined) throw new Error('the contained target has no host pid');
  return {
    child,
    hostPid,
    nsPid,
    stdout: () => out,
    stderr: () => err,
    exited,
    // The target is pid 1 of its namespace: only SIGKILL from outside is sure to end it.
    kill: () => {
      try {
        process.kill(hostPid, 'SIGKILL');
      } catch {
        // gone already
      }
      child.kill('SIGKILL');
    },
  };
}
