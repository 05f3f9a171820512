#!/usr/bin/env bash
# Builds what the Wine tests (test/integration/wine-*.test.ts) run on the Windows side:
#   test/targets/Scenarios/bin/win-x64/Scenarios.exe   self-contained win-x64 .NET 10 publishes
#   test/targets/GcLoad/bin/win-x64/GcLoad.exe          (runtime pack Microsoft.NETCore.App.Runtime.win-x64 from NuGet)
#   test/tools/wine-tools/bin/pipe-relay.exe            Windows-side helpers built with mingw-w64
#   test/tools/wine-tools/bin/read-mapping.exe          (sources in test/tools/wine-tools/)
# Idempotent: each publish is skipped while its sources, the shared props and this script are older than
# its stamp and the SDK is the same. Quiet on success; on failure prints the errors and exits non-zero.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets="$root/test/targets"
programs=(Scenarios GcLoad)

command -v dotnet > /dev/null || { echo "build-targets-windows: dotnet is not on PATH; install the .NET 10 SDK" >&2; exit 1; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
  DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1 DOTNET_GENERATE_ASPNET_CERTIFICATE=false

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

for p in "${programs[@]}"; do
  dir="$targets/$p"
  out="$dir/bin/win-x64"
  stamp="$dir/obj/win-x64/publish.stamp"
  if [[ -f "$stamp" && -f "$out/$p.exe" && ! "$0" -nt "$stamp" && ! "$targets/Directory.Build.props" -nt "$stamp" \
        && "$(cat "$stamp")" == "$(dotnet --version 2>/dev/null)" \
        && -z "$(find "$dir" \( -name bin -o -name obj \) -prune -o -type f \( -name '*.cs' -o -name '*.csproj' \) -newer "$stamp" -print -quit)" ]]; then
    continue
  fi
  # ClrscopeWinX64 keeps this build's obj/ and bin/ apart from the Linux build's (Directory.Build.props).
  if ! dotnet publish "$dir/$p.csproj" -c Release -r win-x64 --self-contained -p:ClrscopeWinX64=true \
      -p:TreatWarningsAsErrors=true --nologo --disable-build-servers -v quiet -clp:ErrorsOnly -o "$out" > "$log" 2>&1; then
    cat "$log" >&2
    echo "build-targets-windows: dotnet publish -r win-x64 failed for $p (it needs NuGet package Microsoft.NETCore.App.Runtime.win-x64)" >&2
    rm -f "$stamp"
    exit 1
  fi
  [[ -f "$out/$p.exe" ]] || { echo "build-targets-windows: expected output missing: $out/$p.exe" >&2; exit 1; }
  mkdir -p "$(dirname "$stamp")"
  dotnet --version > "$stamp"
done

# The Windows-side test helpers: one C++ file each, no runtime DLLs (static libgcc/libstdc++).
cxx=x86_64-w64-mingw32-g++-posix
command -v "$cxx" > /dev/null || { echo "build-targets-windows: $cxx is missing; install g++-mingw-w64-x86-64-posix" >&2; exit 1; }
tools="$root/test/tools/wine-tools"
mkdir -p "$tools/bin"
for src in "$tools"/*.cpp; do
  exe="$tools/bin/$(basename "$src" .cpp).exe"
  [[ -f "$exe" && ! "$src" -nt "$exe" && ! "$0" -nt "$exe" ]] && continue
  if ! "$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -municode -static -static-libgcc -static-libstdc++ \
      -o "$exe" "$src" -lws2_32 > "$log" 2>&1; then
    cat "$log" >&2
    echo "build-targets-windows: building $(basename "$exe") failed" >&2
    exit 1
  fi
done
