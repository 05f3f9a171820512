// How a launched program ended, in the forms clrscope passes on: a number for a session's
// SessionInfo and for the CLI's own exit, a clause for sentences. One home, so the workstation
// and every CLI command that launches (record, counters, measure) say and return the same.

import { constants as osConstants } from 'node:os';
import type { ProgramExit } from './profiled-launch.js';

/** The exit code, or 128 + the signal's number for a program a signal ended (as a shell reports it); null when neither is known. */
export function exitCodeOf(exit: ProgramExit): number | null {
  if (exit.code !== null) return exit.code;
  const signal = exit.signal === null ? undefined : osConstants.signals[exit.signal];
  return signal === undefined ? null : 128 + signal;
}

/** The code a CLI command exits with after the program it launched: as exitCodeOf, and 1 when nothing says how it ended. */
export function commandExitCode(exit: ProgramExit): number {
  if (exit.code !== null) return exit.code;
  if (exit.signal !== null) return 128 + (osConstants.signals[exit.signal] ?? 0);
  return 1;
}

/** "exited with code 3", "was ended by SIGKILL"; `otherwise` when neither is known. */
export function exitText(exit: ProgramExit, otherwise = 'exited'): string {
  if (exit.code !== null) return `exited with code ${exit.code}`;
  if (exit.signal !== null) return `was ended by ${exit.signal}`;
  return otherwise;
}
