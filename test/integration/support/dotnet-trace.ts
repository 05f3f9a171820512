// dotnet-trace, the runtime team's own recorder, for tests that read its files.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** dotnet-trace from PATH, CLRSCOPE_DOTNET_TRACE, or installed as a .NET tool under test/tools/.dotnet-trace. */
export function dotnetTrace(): { path?: string; why?: string } {
  const env = process.env.CLRSCOPE_DOTNET_TRACE;
  if (env !== undefined && env !== '') return { path: env };
  if (spawnSync('dotnet-trace', ['--version'], { encoding: 'utf8' }).status === 0) return { path: 'dotnet-trace' };
  const toolDir = join(ROOT, 'test', 'tools', '.dotnet-trace');
  const exe = join(toolDir, 'dotnet-trace');
  if (existsSync(exe)) return { path: exe };
  const r = spawnSync('dotnet', ['tool', 'install', 'dotnet-trace', '--tool-path', toolDir], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(exe)) return { path: exe };
  return { why: `dotnet tool install dotnet-trace failed: ${(r.stdout + r.stderr).trim().split('\n').pop() ?? ''}` };
}
