// dotnet-trace, the .NET team's own collector, as the peer the benchmarks compare with: installed
// once from the NuGet feed into scripts/bench/.tools (not on PATH, not global).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** { path } of the tool, or { path: undefined, why } when it is skipped or cannot be installed. */
export function dotnetTraceTool(root, skip) {
  if (skip) return { path: undefined, why: 'skipped (--no-dotnet-trace)' };
  const dir = join(root, 'scripts/bench/.tools');
  const exe = join(dir, 'dotnet-trace');
  if (existsSync(exe)) return { path: exe };
  const r = spawnSync('dotnet', ['tool', 'install', 'dotnet-trace', '--tool-path', dir], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(exe)) return { path: exe };
  return { path: undefined, why: `dotnet tool install dotnet-trace failed: ${(r.stdout + r.stderr).trim().split('\n').pop()}` };
}
