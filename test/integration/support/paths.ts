// Where the built pieces the integration tests drive are: the CLI, the profiler, the targets.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (tests run from dist/test/integration/...). */
export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
export const CLI = join(ROOT, 'electron', 'cli', 'clrscope.js');
export const PROFILER = join(ROOT, 'native-profiler', 'build', 'libclrscope.so');

export function targetDll(name: 'Scenarios' | 'Demo' | 'CpuBench' | 'GcLoad' | 'Torture' | 'WireLoad' | 'Measure' | 'ProcessTree' | 'AsyncChain' | 'AsyncWeb' | 'LeakHeap'): string {
  const p = join(ROOT, 'test', 'targets', name, 'bin', 'out', `${name}.dll`);
  if (!existsSync(p)) throw new Error(`${p} is missing: run bash scripts/build-targets.sh`);
  return p;
}

/** The runtimes the core tests run on: net10.0 through `dotnet`, the older ones self-contained. */
export type RuntimeTfm = 'net8.0' | 'net9.0' | 'net10.0';

/** How to start a target on one runtime: `dotnet X.dll` on .NET 10, the self-contained apphost (bin/net8.0/X) on 8 and 9. */
export function targetOn(name: 'Scenarios' | 'GcLoad' | 'LeakHeap', tfm: RuntimeTfm): { command: string; args: string[] } {
  if (tfm === 'net10.0') return { command: 'dotnet', args: [targetDll(name)] };
  const host = join(ROOT, 'test', 'targets', name, 'bin', tfm, name);
  if (!existsSync(host)) throw new Error(`${host} is missing: run bash scripts/build-targets.sh`);
  return { command: host, args: [] };
}
