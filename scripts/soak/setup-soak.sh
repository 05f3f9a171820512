#!/usr/bin/env bash
# Installs and builds what the harmlessness soak (scripts/soak.mjs) and its bounded part in npm test
# (test/integration/soak-real-programs.test.ts) run, from NuGet:
#   - the .NET tools PowerShell, ilspycmd and csharpier, at fixed versions, in test/soak/.tools
#     (`dotnet tool install --tool-path`; each tool's program is the .dll under .tools/.store/...);
#   - SoakWeb (ASP.NET Core, the shared framework) and SoakData (EF Core + SQLite from NuGet), Release,
#     in test/soak/<Project>/bin/out/;
#   - the restore of test/soak/SoakSolution, so the soak's `dotnet build`/`dotnet test` runs need
#     no feed (--no-restore).
# Idempotent: a tool of the right version is not installed again, and the builds are skipped when
# nothing under test/soak/ changed since the last one (a stamp file). Called by scripts/setup.sh.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
soak="$root/test/soak"
tools="$soak/.tools"
stamp="$soak/.cache/setup-soak.stamp"

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
  DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1 DOTNET_GENERATE_ASPNET_CERTIFICATE=false \
  MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0

command -v dotnet >/dev/null || { echo "setup-soak: dotnet is not on PATH" >&2; exit 1; }
# GNU time measures each soak run (wall, CPU of the process tree, the signal that ended it).
[ -x /usr/bin/time ] || { echo "setup-soak: /usr/bin/time (Debian's 'time') is missing; scripts/setup.sh installs it" >&2; exit 1; }

# install_tool PACKAGE VERSION: installs PACKAGE at VERSION into $tools unless it is there already.
install_tool() {
  local package="$1" version="$2" lower
  lower="$(echo "$package" | tr '[:upper:]' '[:lower:]')"
  if [ -d "$tools/.store/$lower/$version/$lower/$version/tools" ]; then return 0; fi
  # Another version installed: replace it.
  if [ -d "$tools/.store/$lower" ]; then dotnet tool uninstall --tool-path "$tools" "$package" >/dev/null || true; fi
  echo "setup-soak: installing $package $version (dotnet tool, NuGet)"
  dotnet tool install --tool-path "$tools" "$package" --version "$version" >/dev/null
}
mkdir -p "$tools" "$soak/.cache"
install_tool PowerShell 7.6.10
install_tool ilspycmd 9.1.0.7988
install_tool csharpier 1.4.0

newer=""
if [ -f "$stamp" ]; then
  newer="$(find "$soak" "$0" \( -path "$soak/.tools" -o -path "$soak/.cache" -o -name bin -o -name obj \) -prune -o -type f -newer "$stamp" -print -quit)"
fi
if [ -f "$stamp" ] && [ -z "$newer" ] && [ -f "$soak/SoakWeb/bin/out/SoakWeb.dll" ] && [ -f "$soak/SoakData/bin/out/SoakData.dll" ] \
   && [ -f "$soak/SoakSolution/Geometry.Tests/obj/project.assets.json" ]; then
  exit 0
fi

build() {
  local out
  if ! out="$(dotnet "$@" --disable-build-servers -nologo -v q 2>&1)"; then
    echo "setup-soak: dotnet $* failed:" >&2
    echo "$out" | grep -E "error|Error" | sort -u | head -20 >&2
    exit 1
  fi
}
echo "setup-soak: building the soak's programs (SoakWeb, SoakData) and restoring SoakSolution"
build build "$soak/SoakWeb/SoakWeb.csproj" -c Release
build build "$soak/SoakData/SoakData.csproj" -c Release
build restore "$soak/SoakSolution/Soak.slnx"
touch "$stamp"
