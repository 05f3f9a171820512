#!/usr/bin/env bash
# Cross-compiles the native profiler for 64-bit Windows (native-profiler/build-windows/clrscope.dll)
# with mingw-w64, installing the compiler first when it is missing (Debian/Ubuntu, as root).
# Incremental: a second run only rebuilds what changed. Nothing here runs the DLL.
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=x86_64-w64-mingw32-g++-posix
if ! command -v "$cxx" > /dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null 2>&1; then
    echo "build-native-windows: $cxx is missing; install g++-mingw-w64-x86-64-posix" >&2
    exit 1
  fi
  echo "build-native-windows: installing g++-mingw-w64-x86-64-posix"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq > /dev/null
  apt-get install -y -qq g++-mingw-w64-x86-64-posix > /dev/null
fi
build=native-profiler/build-windows
if [ ! -f "$build/CMakeCache.txt" ]; then
  mkdir -p "$build"
  if ! cmake -S native-profiler -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_TOOLCHAIN_FILE="$PWD/native-profiler/cmake/mingw-w64-x86_64.cmake" > "$build.configure.log" 2>&1; then
    cat "$build.configure.log"
    rm -f "$build.configure.log" "$build/CMakeCache.txt"
    exit 1
  fi
  rm -f "$build.configure.log"
fi
log=$(mktemp)
if ! cmake --build "$build" --target clrscope -j "$(nproc)" > "$log" 2>&1; then
  cat "$log"
  rm -f "$log"
  echo "build-native-windows: the Windows build failed" >&2
  exit 1
fi
rm -f "$log"
echo "build-native-windows: $build/clrscope.dll"
