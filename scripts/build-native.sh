#!/usr/bin/env bash
# Builds the native profiler (native-profiler/build/libclrscope.so) and its GoogleTest suite.
# Incremental: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=native-profiler/build
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S native-profiler -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
  rm -f "$build.configure.log"
fi
log=$(mktemp)
if ! cmake --build "$build" -j "$(nproc)" > "$log" 2>&1; then
  cat "$log"
  rm -f "$log"
  echo "build-native: the native build failed" >&2
  exit 1
fi
rm -f "$log"
echo "build-native: $build/libclrscope.so"

