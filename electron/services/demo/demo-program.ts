// The bundled demo service (test/targets/Demo) that `clrscope demo` records and the workstation
// offers to launch: one place for its path, so the workstation does not reach into the CLI.

import { join } from 'node:path';
import { packageRoot } from '../profiler/profiler-env.js';

/** Demo.dll in a checkout (the packaged app passes its own copy to the workstation). */
export function demoProgramPath(): string {
  return join(packageRoot(), 'test', 'targets', 'Demo', 'bin', 'out', 'Demo.dll');
}
