#!/usr/bin/env bash
# Prepares the Wine tests (test/integration/wine-*.test.ts): Debian's wine64 (apt, as root), the
# Windows-side builds (scripts/build-targets-windows.sh), and a private Wine prefix under
# native-profiler/build-windows/wineprefix, started once here so that the tests do not pay the first
# start (about 9 s: Wine creates the prefix's registry and system folders).
# Without apt or root it says why and leaves the Wine tests to skip themselves.
set -euo pipefail
cd "$(dirname "$0")/.."

wine=/usr/lib/wine/wine64
if [ ! -x "$wine" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null 2>&1; then
    echo "setup-wine: wine64 is missing and cannot be installed here (needs apt-get as root); the Wine tests will be skipped" >&2
    exit 0
  fi
  echo "setup-wine: installing wine64 (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq > /dev/null
  apt-get install -y -qq wine64 > /dev/null
fi

bash scripts/build-targets-windows.sh

prefix="$PWD/native-profiler/build-windows/wineprefix"
if [ ! -f "$prefix/system.reg" ]; then
  echo "setup-wine: creating the Wine prefix (first start, ~10 s)"
  mkdir -p "$prefix"
  chmod 700 "$prefix"
  # wineboot -i builds the prefix; -s shuts its wineserver down again, so nothing outlives setup.
  WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" "$wine" wineboot -i > /dev/null 2>&1
  WINEPREFIX="$prefix" WINEDEBUG=-all /usr/lib/wine/wineserver64 -w
fi
echo "setup-wine: $prefix"
