// dotnet-gcdump, the runtime team's heap snapshot tool, for tests that check clrscope's reading
// of its .gcdump files against its own `report`.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** The version scripts/setup.sh installs: the diagnostics tools' 10.0 release. */
export const DOTNET_GCDUMP_VERSION = '10.0.750501';

/** dotnet-gcdump from CLRSCOPE_DOTNET_GCDUMP, PATH, or installed as a .NET tool under test/tools/.dotnet-gcdump. */
export function dotnetGcdump(): { path?: string; why?: string } {
  const env = process.env.CLRSCOPE_DOTNET_GCDUMP;
  if (env !== undefined && env !== '') return { path: env };
  if (spawnSync('dotnet-gcdump', ['--version'], { encoding: 'utf8' }).status === 0) return { path: 'dotnet-gcdump' };
  const toolDir = join(ROOT, 'test', 'tools', '.dotnet-gcdump');
  const exe = join(toolDir, 'dotnet-gcdump');
  if (existsSync(exe)) return { path: exe };
  const r = spawnSync('dotnet', ['tool', 'install', 'dotnet-gcdump', '--version', DOTNET_GCDUMP_VERSION, '--tool-path', toolDir], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(exe)) return { path: exe };
  return { why: `dotnet tool install dotnet-gcdump failed: ${(r.stdout + r.stderr).trim().split('\n').pop() ?? ''}` };
}
