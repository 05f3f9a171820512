// Where the built pieces the integration tests drive are: the CLI, the profiler, the targets.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (tests run from dist/test/integration/...). */
export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
export const CLI = join(ROOT, 'electron', 'cli', 'clrscope.js');
export const PROFILER = join(ROOT, 'native-profiler', 'build', 'libclrscope.so');

export function targetDll(name: 'Scenarios' | 'Demo' | 'CpuBench' | 'GcLoad' | 'Measure'): string {
  const p = join(ROOT, 'test', 'targets', name, 'bin', 'out', `${name}.dll`);
  if (!existsSync(p)) throw new Error(`${p} is missing: run bash scripts/build-targets.sh`);
  return p;
}
