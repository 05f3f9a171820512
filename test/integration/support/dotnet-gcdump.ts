// dotnet-gcdump, the runtime team's heap snapshot tool, for tests that check clrscope's reading
// of its .gcdump files against its own `report`.

import { diagnosticsTool } from './diagnostics-tool.js';

/** The version scripts/setup.sh installs: the diagnostics tools' 10.0 release. */
export const DOTNET_GCDUMP_VERSION = '10.0.750501';

/** dotnet-gcdump from CLRSCOPE_DOTNET_GCDUMP, PATH, or installed as a .NET tool under test/tools/.dotnet-gcdump. */
export function dotnetGcdump(): { path?: string; why?: string } {
  return diagnosticsTool('dotnet-gcdump', 'CLRSCOPE_DOTNET_GCDUMP', DOTNET_GCDUMP_VERSION);
}
