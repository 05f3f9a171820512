// dotnet-trace, the .NET team's own collector, as the peer the benchmarks compare with: the same
// lookup the tests use (PATH, CLRSCOPE_DOTNET_TRACE, or installed once from the NuGet feed under
// test/tools/.dotnet-trace), so a machine installs it once for both.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** { path } of the tool, or { path: undefined, why } when it is skipped or cannot be installed. */
export async function dotnetTraceTool(root, skip) {
  if (skip) return { path: undefined, why: 'skipped (--no-dotnet-trace)' };
  const lookup = join(root, 'dist/test/integration/support/dotnet-trace.js');
  if (!existsSync(lookup)) return { path: undefined, why: 'dist/ is missing; run npm run build first' };
  const { dotnetTrace } = await import(pathToFileURL(lookup).href);
  const found = dotnetTrace();
  return { path: found.path, why: found.why };
}
