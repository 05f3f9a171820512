// The runtime team's diagnostics tools (dotnet-trace, dotnet-counters, dotnet-gcdump), the peers
// clrscope's figures are checked against: found the same way for each, so a test names only which.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/**
 * The tool `name` from the environment variable `envVar`, PATH, or installed as a .NET tool under
 * test/tools/.NAME (at `version` when given: scripts/setup.sh installs that one).
 */
export function diagnosticsTool(name: string, envVar: string, version?: string): { path?: string; why?: string } {
  const env = process.env[envVar];
  if (env !== undefined && env !== '') return { path: env };
  if (spawnSync(name, ['--version'], { encoding: 'utf8' }).status === 0) return { path: name };
  const toolDir = join(ROOT, 'test', 'tools', `.${name}`);
  const exe = join(toolDir, name);
  if (existsSync(exe)) return { path: exe };
  const pinned = version !== undefined ? ['--version', version] : [];
  const r = spawnSync('dotnet', ['tool', 'install', name, ...pinned, '--tool-path', toolDir], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(exe)) return { path: exe };
  return { why: `dotnet tool install ${name} failed: ${(r.stdout + r.stderr).trim().split('\n').pop() ?? ''}` };
}
