#!/usr/bin/env bash
# Builds the C# target programs under test/targets/ (Release, offline, no NuGet packages).
#
# Output, one folder per program (set by test/targets/Directory.Build.props):
#   test/targets/Scenarios/bin/out/Scenarios.dll   run: dotnet test/targets/Scenarios/bin/out/Scenarios.dll all --seconds 1
#   test/targets/Demo/bin/out/Demo.dll             run: dotnet test/targets/Demo/bin/out/Demo.dll --seconds 10
#   test/targets/CpuBench/bin/out/CpuBench.dll     run: dotnet test/targets/CpuBench/bin/out/CpuBench.dll --threads 2 --work 50000
#   test/targets/GcLoad/bin/out/GcLoad.dll         run: dotnet test/targets/GcLoad/bin/out/GcLoad.dll --gen0 5 --gen1 3 --gen2 2 --allocate-mb 200 --exceptions 100
#   test/targets/WireLoad/bin/out/WireLoad.dll     run: dotnet test/targets/WireLoad/bin/out/WireLoad.dll lock --threads 200 --seconds 10
#   test/targets/Torture/bin/out/Torture.dll       run: dotnet test/targets/Torture/bin/out/Torture.dll library-swap --exit-code 42
#     with its native libraries in test/targets/Torture/bin/native/ (scripts/build-torture-native.sh, gcc)
#   test/targets/LeakHeap/bin/out/LeakHeap.dll     run: dotnet test/targets/LeakHeap/bin/out/LeakHeap.dll --items 1000 --stack 30 --handles 7
#   test/targets/RequestWeb/bin/out/RequestWeb.dll run: dotnet test/targets/RequestWeb/bin/out/RequestWeb.dll serve
# and self-contained .NET 8 and 9 builds of Scenarios, GcLoad, LeakHeap and RequestWeb (NuGet runtime
# packs, ASP.NET Core's too):
#   test/targets/Scenarios/bin/net8.0/Scenarios   run: test/targets/Scenarios/bin/net8.0/Scenarios cpu-ratio --seconds 1
#   test/targets/GcLoad/bin/net9.0/GcLoad         (and the other two combinations)
# and the two TraceEvent tools (they restore NuGet Microsoft.Diagnostics.Tracing.TraceEvent):
#   test/tools/TraceCheck/bin/out/TraceCheck.dll           run: dotnet …/TraceCheck.dll FILE.nettrace|FILE.etlx [--top N]
#   electron/tools/EtlxConverter/bin/out/EtlxConverter.dll run: dotnet …/EtlxConverter.dll IN.nettrace OUT.etlx
# Each folder also holds an apphost (e.g. bin/out/Scenarios) and the portable PDB.
#
# Usage: scripts/build-targets.sh [--force]
#   Quiet on success; on failure prints the compiler errors and exits non-zero.
#   Idempotent: if nothing under test/targets/ (sources, project files) nor this script changed since
#   the last successful build, and all their outputs exist, it skips them without running dotnet; the
#   two tools are checked the same way, each against its own folder.
#   --force (or CLRSCOPE_FORCE_BUILD=1) always runs the build.
# Build servers are disabled (--disable-build-servers) so no MSBuild/compiler server outlives the
# script and holds on to a CI pipe.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets="$root/test/targets"
solution="$targets/Targets.slnx"
stamp="$targets/obj/build-targets.stamp"
programs=(Scenarios Demo CpuBench GcLoad Torture WireLoad Measure ProcessTree AsyncChain AsyncWeb LeakHeap RequestWeb)

force="${CLRSCOPE_FORCE_BUILD:-0}"
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build-targets: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

if ! command -v dotnet >/dev/null 2>&1; then
  echo "build-targets: dotnet is not on PATH; install the .NET 10 SDK" >&2
  exit 1
fi

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
  DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1 DOTNET_GENERATE_ASPNET_CERTIFICATE=false

# inputs_unchanged STAMP: the stamp exists, and neither this script, nor any source or project
# file under test/targets/, nor the SDK changed since it was written.
inputs_unchanged() {
  local stamp_file="$1"
  [[ -f "$stamp_file" ]] || return 1
  [[ "$0" -nt "$stamp_file" ]] && return 1
  # Any input newer than the stamp? (bin/ and obj/ are outputs; README files do not affect the build.)
  local newer
  newer="$(find "$targets" \( -name bin -o -name obj -o -name node_modules \) -prune -o \
    -type f \( -name '*.cs' -o -name '*.csproj' -o -name '*.props' -o -name '*.targets' -o -name '*.slnx' -o -name '*.json' \) \
    -newer "$stamp_file" -print -quit)"
  [[ -z "$newer" ]] || return 1
  # Same SDK as last time?
  [[ "$(cat "$stamp_file")" == "$(dotnet --version 2>/dev/null)" ]]
}

up_to_date() {
  local p
  for p in "${programs[@]}"; do
    [[ -f "$targets/$p/bin/out/$p.dll" && -f "$targets/$p/bin/out/$p.runtimeconfig.json" ]] || return 1
  done
  inputs_unchanged "$stamp"
}

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

build_targets() {
  if ! dotnet build "$solution" -c Release --nologo --disable-build-servers -v quiet -clp:ErrorsOnly \
    -p:TreatWarningsAsErrors=true >"$log" 2>&1; then
    cat "$log" >&2
    echo "build-targets: dotnet build failed for $solution" >&2
    rm -f "$stamp"
    exit 1
  fi

  for p in "${programs[@]}"; do
    if [[ ! -f "$targets/$p/bin/out/$p.dll" ]]; then
      echo "build-targets: expected output missing: test/targets/$p/bin/out/$p.dll" >&2
      exit 1
    fi
  done
  mkdir -p "$(dirname "$stamp")"
  dotnet --version >"$stamp"
}

if [[ "$force" == 1 ]] || ! up_to_date; then
  build_targets
fi
bash "$root/scripts/build-torture-native.sh"

# The same programs on .NET 8 and 9: self-contained linux-x64 builds on those runtimes' packs
# (NuGet Microsoft.NETCore.App.Runtime/Ref/Host.linux-x64, the versions this SDK knows as
# latest), in <Program>/bin/net8.0/ and bin/net9.0/; run the apphost there.
old_runtimes=(net8.0 net9.0)
runtime_programs=(Scenarios GcLoad LeakHeap RequestWeb)
for rt in "${old_runtimes[@]}"; do
  rt_stamp="$targets/obj/build-targets-$rt.stamp"
  missing=0
  for p in "${runtime_programs[@]}"; do
    [[ -x "$targets/$p/bin/$rt/$p" && -f "$targets/$p/bin/$rt/$p.dll" ]] || missing=1
  done
  if [[ "$force" != 1 && "$missing" == 0 ]] && inputs_unchanged "$rt_stamp"; then
    continue
  fi
  for p in "${runtime_programs[@]}"; do
    if ! dotnet build "$targets/$p/$p.csproj" -c Release -p:ClrscopeRuntime="$rt" --nologo --disable-build-servers \
      -v quiet -clp:ErrorsOnly -p:TreatWarningsAsErrors=true >"$log" 2>&1; then
      cat "$log" >&2
      echo "build-targets: dotnet build failed for $p on $rt (it needs the NuGet runtime packs for linux-x64)" >&2
      rm -f "$rt_stamp"
      exit 1
    fi
    if [[ ! -x "$targets/$p/bin/$rt/$p" ]]; then
      echo "build-targets: expected output missing: test/targets/$p/bin/$rt/$p" >&2
      exit 1
    fi
  done
  mkdir -p "$targets/obj"
  dotnet --version >"$rt_stamp"
done

# TraceEvent tools: one project each, each with its own stamp, rebuilt when its sources, this
# script or the SDK changed. Unlike the targets they need NuGet (the package source or its cache).
tools=(test/tools/TraceCheck/TraceCheck electron/tools/EtlxConverter/EtlxConverter)
for t in "${tools[@]}"; do
  dir="$root/$(dirname "$t")"
  name="$(basename "$t")"
  tool_stamp="$dir/obj/build-tool.stamp"
  if [[ "$force" != 1 && -f "$tool_stamp" && -f "$dir/bin/out/$name.dll" && ! "$0" -nt "$tool_stamp" \
        && "$(cat "$tool_stamp")" == "$(dotnet --version 2>/dev/null)" \
        && -z "$(find "$dir" \( -name bin -o -name obj \) -prune -o -type f \( -name '*.cs' -o -name '*.csproj' \) -newer "$tool_stamp" -print -quit)" ]]; then
    continue
  fi
  if ! dotnet build "$dir/$name.csproj" -c Release --nologo --disable-build-servers -v quiet -clp:ErrorsOnly >"$log" 2>&1; then
    cat "$log" >&2
    echo "build-targets: dotnet build failed for ${t}.csproj (it needs NuGet package Microsoft.Diagnostics.Tracing.TraceEvent)" >&2
    rm -f "$tool_stamp"
    exit 1
  fi
  if [[ ! -f "$dir/bin/out/$name.dll" ]]; then
    echo "build-targets: expected output missing: $(dirname "$t")/bin/out/$name.dll" >&2
    exit 1
  fi
  mkdir -p "$dir/obj"
  dotnet --version >"$tool_stamp"
done
