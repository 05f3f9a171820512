// Whether a command is a .NET tool's launcher (`dotnet tool install`'s command file, in
// ~/.dotnet/tools or a --tool-path folder). The launcher is a native apphost that runs the tool's
// entry point; some entry points are launchers again and start the real program as a child
// process (PowerShell's `pwsh` runs Microsoft.PowerShell.GlobalTool.Shim.dll, which starts
// `dotnet pwsh.dll`), so recording only the launched process records a process that waits.
// Which entry points do that cannot be told from the files, so `record` follows the processes
// every tool starts. The install's layout is the SDK's: DIR/NAME beside
// DIR/.store/<package>/<version>/<package>/<version>/tools/<tfm>/<rid>/DotnetToolSettings.xml,
// whose <Command Name="NAME" EntryPoint="X.dll"/> names the entry point.

import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

export interface DotnetTool {
  /** The command's name ("pwsh"). */
  command: string;
  /** The NuGet package ("powershell") and its version, as the tool store names them. */
  packageId: string;
  version: string;
  /** The .dll the launcher runs ("Microsoft.PowerShell.GlobalTool.Shim.dll"). */
  entryPoint: string;
}

/** The file `command` runs: as given when it names a path, else the first match on PATH. */
export function commandFile(command: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return isFile(path) ? path : undefined;
  }
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '') continue;
    const path = join(folder, command);
    if (isFile(path)) return path;
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}

/** The tool `command` launches, or undefined when it is not a .NET tool's launcher. */
export function dotnetToolOf(command: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): DotnetTool | undefined {
  const file = commandFile(command, env, cwd);
  if (file === undefined) return undefined;
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return undefined;
  }
  const name = basename(real);
  const store = join(dirname(real), '.store');
  if (!existsSync(store)) return undefined;
  for (const pkg of entries(store)) {
    for (const version of entries(join(store, pkg))) {
      const tools = join(store, pkg, version, pkg, version, 'tools');
      for (const tfm of entries(tools)) {
        for (const rid of entries(join(tools, tfm))) {
          const entryPoint = commandIn(join(tools, tfm, rid, 'DotnetToolSettings.xml'), name);
          if (entryPoint !== undefined) return { command: name, packageId: pkg, version, entryPoint };
        }
      }
    }
  }
  return undefined;
}

/** The EntryPoint of the <Command> named `name` in a DotnetToolSettings.xml, if it has one. */
function commandIn(settingsPath: string, name: string): string | undefined {
  let xml: string;
  try {
    xml = readFileSync(settingsPath, 'utf8');
  } catch {
    return undefined;
  }
  for (const m of xml.matchAll(/<Command\b([^>]*)>/g)) {
    const attrs = m[1];
    if (attributeOf(attrs, 'Name') === name) return attributeOf(attrs, 'EntryPoint');
  }
  return undefined;
}

function attributeOf(attrs: string, attr: string): string | undefined {
  return new RegExp(`\\b${attr}\\s*=\\s*"([^"]*)"`).exec(attrs)?.[1];
}

/** What `record` says before it starts a tool's launcher: that it follows what the launcher starts, and why. */
export function toolLauncherNotice(tool: DotnetTool): string {
  return `${tool.command} is the launcher of the .NET tool ${tool.packageId} ${tool.version} (it runs ${tool.entryPoint}, which may start the real program as a process of its own): recording every .NET process it starts, as --children does.`;
}
