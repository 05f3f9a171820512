// dotnet-trace, the runtime team's own recorder, for tests that read its files.

import { diagnosticsTool } from './diagnostics-tool.js';

/** dotnet-trace from CLRSCOPE_DOTNET_TRACE, PATH, or installed as a .NET tool under test/tools/.dotnet-trace. */
export function dotnetTrace(): { path?: string; why?: string } {
  return diagnosticsTool('dotnet-trace', 'CLRSCOPE_DOTNET_TRACE');
}
