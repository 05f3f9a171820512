#!/usr/bin/env bash
# Sets up a fresh machine for clrscope and builds everything: system packages (apt), npm
# packages, the TypeScript, the native profiler and the C# test and demo programs.
# Idempotent: on a machine that is already set up it only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
# go tool pprof is the independent reader the tests check our pprof files with.
command -v go >/dev/null || need_apt+=(golang-go)
# Debian's Chromium: the browser the end-to-end tests drive through playwright-core (no
# browser download: playwright-core uses this one).
command -v chromium >/dev/null || need_apt+=(chromium)
# The fonts the page's families resolve to, which the visual references were drawn with
# (test/integration/workstation-visual.test.ts): DejaVu for sans-serif and monospace, fontconfig to find them.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
command -v fc-match >/dev/null || need_apt+=(fontconfig)
# Cross compilers: the Windows DLL (64-bit), and the counters block's layout checked under the
# 32-bit ABIs (Linux -m32, 32-bit Windows) as well as the native one.
command -v x86_64-w64-mingw32-g++-posix >/dev/null || need_apt+=(g++-mingw-w64-x86-64-posix)
command -v i686-w64-mingw32-g++-posix >/dev/null || need_apt+=(g++-mingw-w64-i686-posix)
[ -d /usr/lib/gcc/x86_64-linux-gnu/12/32 ] || need_apt+=(g++-multilib)
# GNU time: the harmlessness soak measures each program's wall and CPU time and how it ended with it.
[ -x /usr/bin/time ] || need_apt+=(time)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} (apt)"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" > /dev/null
fi
command -v dotnet >/dev/null || { echo "setup: the .NET SDK (dotnet) is required and not on PATH" >&2; exit 1; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  # The Electron binary cannot be downloaded on these machines; browser mode needs none.
  ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
fi

echo "setup: building TypeScript, the Electron shell and the renderer"
npm run --silent build
echo "setup: building the native profiler"
bash scripts/build-native.sh
# The ThreadSanitizer and AddressSanitizer+UBSan builds (gcc's sanitizer runtimes ship with g++).
echo "setup: building the native profiler with sanitizers"
bash scripts/build-native-sanitizers.sh
echo "setup: building the .NET test and demo programs"
bash scripts/build-targets.sh
# dotnet-gcdump, the peer the heap snapshot tests read the snapshots of and compare with
# (test/integration/support/dotnet-gcdump.ts pins the same version).
if [ ! -x test/tools/.dotnet-gcdump/dotnet-gcdump ]; then
  echo "setup: installing dotnet-gcdump (a .NET tool from NuGet) in test/tools/.dotnet-gcdump"
  dotnet tool install dotnet-gcdump --version 10.0.750501 --tool-path test/tools/.dotnet-gcdump > /dev/null
fi
# The Windows profiler, run for real inside a Windows CoreCLR under Wine by the wine-* integration
# tests: the DLL, Debian's wine64, self-contained win-x64 publishes (runtime pack from NuGet), the
# mingw test helpers and a warmed Wine prefix.
echo "setup: building the Windows profiler and the Wine test parts"
bash scripts/build-native-windows.sh
bash scripts/setup-wine.sh
# The harmlessness soak's real programs (PowerShell, ilspycmd, csharpier as .NET tools from NuGet)
# and its own programs on NuGet libraries (ASP.NET Core, EF Core + SQLite): test/soak/.
echo "setup: installing and building the soak's programs"
bash scripts/soak/setup-soak.sh
echo "setup: done"
