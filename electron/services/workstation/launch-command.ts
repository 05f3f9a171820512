// What to spawn for a launch request. launchProfiled starts programs in the workstation's own
// working directory; a request with another one runs the program through `sh -c 'cd DIR && exec
// PROGRAM ARGS'`, which keeps the pid (exec replaces the shell), after checking here that the
// directory and the program exist so a mistake is still one sentence and no session.

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UserError } from '../errors/user-error.js';

export interface Spawnable {
  command: string;
  args: string[];
}

/** `cd` into $1, then exec the rest: the program keeps the pid the shell had. */
export const CWD_SCRIPT = 'cd -- "$1" || exit 126; shift; exec "$@"';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The program `command` names, as the kernel would find it from `cwd` with PATH; undefined when none. */
export function findProgram(command: string, cwd: string, pathVariable = process.env.PATH ?? ''): string | undefined {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === '') continue;
    const path = join(isAbsolute(dir) ? dir : resolve(cwd, dir), command);
    if (isExecutableFile(path)) return path;
  }
  return undefined;
}

export async function resolveLaunch(command: string, args: readonly string[], cwd: string | undefined): Promise<Spawnable> {
  if (cwd === undefined || resolve(cwd) === process.cwd()) return { command, args: [...args] };
  if (!isDirectory(cwd)) throw new UserError(`The working directory ${cwd} does not exist or is not a folder.`);
  if (process.platform === 'win32') throw new UserError('Launching in another working directory is not supported on Windows yet.');
  const program = findProgram(command, cwd);
  if (program === undefined) throw new UserError(`Command not found: ${command}.`);
  return { command: '/bin/sh', args: ['-c', CWD_SCRIPT, 'clrscope', cwd, program, ...args] };
}
