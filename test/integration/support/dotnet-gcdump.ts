// dotnet-gcdump, the runtime team's heap snapshot tool, for tests that check clrscope's reading
// of its .gcdump files against its own `report`.

import { spawnSync } from 'node:child_process';
import { diagnosticsTool } from './diagnostics-tool.js';

/** The version scripts/setup.sh installs: the diagnostics tools' 10.0 release. */
export const DOTNET_GCDUMP_VERSION = '10.0.750501';

/** dotnet-gcdump from CLRSCOPE_DOTNET_GCDUMP, PATH, or installed as a .NET tool under test/tools/.dotnet-gcdump. */
export function dotnetGcdump(): { path?: string; why?: string } {
  return diagnosticsTool('dotnet-gcdump', 'CLRSCOPE_DOTNET_GCDUMP', DOTNET_GCDUMP_VERSION);
}

/** `dotnet-gcdump report FILE`'s count per type name, size buckets ("T (Bytes > 1K)") summed into their type. */
export function gcdumpReportCounts(tool: string, file: string): Map<string, number> {
  const r = spawnSync(tool, ['report', file], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`dotnet-gcdump report failed (${r.status}): ${r.stderr}`);
  const counts = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*[\d,]+\s+([\d,]+)\s+(.+?)(?: \(Bytes > \d+K\))?(?:\s+\[[^\]]*\])?\s*$/.exec(line);
    if (m === null) continue;
    counts.set(m[2], (counts.get(m[2]) ?? 0) + Number(m[1].replace(/,/g, '')));
  }
  return counts;
}
